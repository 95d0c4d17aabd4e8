"""Colours and markers shared by the figures: one colour per estimator, one marker style per check status."""
import numpy as np
from matplotlib.lines import Line2D

import families

ESTIMATOR_COLORS = families.COLORS  # from the family table (families.json)
EXTRA_COLORS = ["tab:olive", "tab:cyan", "darkgoldenrod", "navy"]  # none of them a family colour (families.json)

STATUS_LABELS = {
    "holds": "holds (filled)",
    "inconclusive": "inconclusive (hollow)",
    "violated": "violated (red ×)",
    "measured": "measured, no verdict (diamond)",
}


def series_color(estimator, extra_index=0):
    """The estimator's colour; a series of the same estimator at another m takes EXTRA_COLORS[extra_index]."""
    if extra_index:
        return EXTRA_COLORS[(extra_index - 1) % len(EXTRA_COLORS)]
    return ESTIMATOR_COLORS.get(estimator, "tab:gray")


def status_marker(status, color):
    """Marker keyword arguments for a point whose check status is status (None: no check, a small dot)."""
    if status == "holds":
        return {"marker": "o", "color": color, "markerfacecolor": color, "markeredgecolor": color}
    if status == "inconclusive":
        return {"marker": "o", "color": color, "markerfacecolor": "none", "markeredgecolor": color}
    if status == "violated":
        return {"marker": "X", "color": "red", "markerfacecolor": "red", "markeredgecolor": "red", "markersize": 9}
    if status == "measured":
        return {"marker": "D", "color": color, "markerfacecolor": "none", "markeredgecolor": color, "markersize": 4}
    return {"marker": ".", "color": color, "markerfacecolor": color, "markeredgecolor": color}


def plot_by_status(ax, x, y, statuses, color, markersize=5):
    """Draw points x, y without lines, each styled by its status."""
    x, y, statuses = np.asarray(x), np.asarray(y), list(statuses)
    for status in dict.fromkeys(statuses):
        keep = np.array([s == status for s in statuses])
        style = {"markersize": markersize, "markeredgewidth": 1.1, **status_marker(status, color)}
        ax.plot(x[keep], y[keep], linestyle="none", **style)


def status_handles():
    """Legend entries explaining the status markers."""
    return [Line2D([], [], linestyle="none", label=label, **{"markersize": 6, **status_marker(status, "black")})
            for status, label in STATUS_LABELS.items()]
