"""The parts journal: a run's finished chunks, appended to one file in chunk order.

Each record is one chunk's part (an Arrow IPC file, see ``sim.batch.tables``),
framed by ``MAGIC``, its length and its CRC-32. One file, not a file per chunk:
creating, syncing and deleting a file per chunk of 500 battles cost more wall time
than the batch's counting (about 9 ms a chunk on an ext4 disk mounted with
``discard``).

Appends are not synced, and need not be: a killed process loses nothing (the page
cache outlives it), and after a power cut the CRC finds a torn or unwritten tail.
Whatever follows the last whole record is dropped when the run resumes and its
battles are played again, which gives the same rows: a battle depends only on its
seed.
"""

from __future__ import annotations

import os
import pathlib
import struct
import zlib
from collections.abc import Iterator
from typing import BinaryIO

from sim.io.infile import open_regular

MAGIC = b"CSJ1"
HEADER = struct.Struct(">4sQI")  # magic, payload length, CRC-32 of the payload
BLOCK = 1 << 20  # bytes read at a time to check a record


def append(path: pathlib.Path, payload: bytes) -> None:
    """Add one record at the end, in one write (a crash leaves at most a torn last record)."""
    fd = _open_for_writing(path, os.O_APPEND | os.O_CREAT)
    try:
        header = HEADER.pack(MAGIC, len(payload), zlib.crc32(payload))
        written = os.writev(fd, [header, payload])  # not copied into one buffer first
        rest = memoryview(header + payload)[written:] if written < len(header) + len(payload) else b""
        while rest:  # cut short (a signal, a nearly full disk): write the rest, or fail with OSError
            rest = rest[os.write(fd, rest):]
    finally:
        os.close(fd)


def _open_for_writing(path: pathlib.Path, flags: int) -> int:
    """A descriptor to write the journal itself: a symbolic link planted in its place is an
    OSError, never followed to write into another file."""
    return os.open(path, os.O_WRONLY | flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                   0o644)


def records(path: pathlib.Path) -> Iterator[bytes]:
    """The payloads of the whole records at the start of the journal, one at a time (a run's
    journal may be far larger than memory); none when there is no journal."""
    try:
        handle = open_regular(path)  # a FIFO planted as the journal must not hang us
    except FileNotFoundError:
        return
    with handle:
        size = os.fstat(handle.fileno()).st_size
        while True:
            header = handle.read(HEADER.size)
            if len(header) < HEADER.size:
                return
            magic, length, crc = HEADER.unpack(header)
            start = handle.tell()
            if magic != MAGIC or length > size - start or _crc(handle, length) != crc:
                return
            handle.seek(start)  # the checksum held: now the payload is worth keeping
            payload = handle.read(length)
            if len(payload) != length:
                return
            yield payload


def _crc(handle: BinaryIO, length: int) -> int:
    """CRC-32 of the next ``length`` bytes, read a block at a time: a damaged length field
    never makes a resume hold the rest of the journal in memory."""
    crc = 0
    while length > 0:
        block = handle.read(min(length, BLOCK))
        if not block:
            return -1  # cut short: no CRC-32 is negative
        crc = zlib.crc32(block, crc)
        length -= len(block)
    return crc


def whole_length(path: pathlib.Path) -> int:
    """Bytes taken by the whole records at the start (what a resume keeps)."""
    return sum(HEADER.size + len(payload) for payload in records(path))


def trim(path: pathlib.Path) -> None:
    """Drop a torn or damaged tail, so that the next record follows the last whole one."""
    if not path.exists():
        return
    keep = whole_length(path)
    if os.path.getsize(path) > keep:
        fd = _open_for_writing(path, 0)
        try:
            os.ftruncate(fd, keep)
        finally:
            os.close(fd)
