"""Write figures as PNG files atomically: render to a temporary name in the target directory, then rename."""
import os

DPI = 130


def save_png(fig, path):
    """Save fig to path so that readers only ever see the old file or the complete new one."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "xb") as f:
            fig.savefig(f, format="png", dpi=DPI)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
