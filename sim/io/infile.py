"""Opening input files (scenarios, bestiaries, logs, manifests) without ever blocking.

A FIFO opened for reading waits for a writer, and a device such as /dev/zero or a
terminal never ends: both would hang a command that was handed the wrong path.
Every input is therefore opened non-blocking and checked to be a regular file
before a byte is read; anything else is refused at once as an ``OSError`` (so
the callers' existing ``except OSError`` turns it into one clear line).
"""

from __future__ import annotations

import errno
import io
import os
import stat
from typing import BinaryIO

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFileError(OSError):
    """The path names something other than a regular file (a FIFO, a device, a directory)."""

    def __init__(self, path: os.PathLike[str] | str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", os.fspath(path))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "something special")


def open_regular(path: os.PathLike[str] | str) -> BinaryIO:
    """Open ``path`` for reading in binary, refusing anything but a regular file at once.

    O_NONBLOCK makes opening a FIFO with no writer return instead of waiting;
    fstat on the open descriptor (not a stat before opening) leaves no window in
    which the path could be swapped for something else.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)  # Windows
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise NotRegularFileError(path, "a directory") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(path, _kind(mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file never blocks; plain reads from here
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_regular_text(path: os.PathLike[str] | str) -> io.TextIOWrapper:
    """``open_regular`` decoded as UTF-8 text (for JSON Lines)."""
    return io.TextIOWrapper(open_regular(path), encoding="utf-8")

