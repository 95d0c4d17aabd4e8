"""The feature-family table of favorlab (src/features/feature_family.cpp), as written by `favorlab families --json`
into families.json next to this file: names, estimator names, colours and order. A test keeps the file equal to the
binary's output, so a family added to the table cannot be forgotten here."""
import json
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "families.json"), encoding="utf-8") as _f:
    TABLE = json.load(_f)

# Every spelling of a family (name and estimator name), in table order.
ORDER = []
for _row in TABLE:
    for _name in (_row["name"], _row["estimator_name"]):
        if _name not in ORDER:
            ORDER.append(_name)

COLORS = {}
for _row in TABLE:
    COLORS[_row["name"]] = _row["color"]
    COLORS[_row["estimator_name"]] = _row["color"]


def order_key(name):
    """Sort key placing families in table order, unknown names last."""
    return ORDER.index(name) if name in ORDER else len(ORDER)
