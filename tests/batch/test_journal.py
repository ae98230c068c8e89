"""The parts journal: records appended, read back whole, a torn tail found and trimmed."""

from __future__ import annotations

import os
import pathlib

import pytest

from sim.batch import journal
from sim.io.infile import NotRegularFileError
from tests.batch.helpers import write_journal


def filled(tmp_path: pathlib.Path, payloads: list[bytes]) -> pathlib.Path:
    write_journal(tmp_path, payloads)
    return tmp_path / "parts.journal"


class TestJournal:
    def test_records_come_back_in_order(self, tmp_path: pathlib.Path) -> None:
        """Appended payloads (the empty one too) are read back whole, in order."""
        payloads = [b"first", b"", bytes(range(256)) * 40]
        assert list(journal.records(filled(tmp_path, payloads))) == payloads

    @pytest.mark.parametrize("short", [0, 3, journal.HEADER.size, journal.HEADER.size + 7])
    def test_a_short_write_is_finished(self, tmp_path: pathlib.Path, monkeypatch, short: int) -> None:
        """When the kernel takes only part of a record (a signal, a nearly full disk), append
        writes the rest, bit by bit: the record reads back whole."""
        real_write = os.write

        def writev(fd: int, buffers: list[bytes]) -> int:
            return real_write(fd, b"".join(buffers)[:short])

        def write(fd: int, data: bytes) -> int:
            return real_write(fd, bytes(data[:5]))  # five bytes at a time

        monkeypatch.setattr(journal.os, "writev", writev)
        monkeypatch.setattr(journal.os, "write", write)
        payloads = [b"first", bytes(range(256))]
        assert list(journal.records(filled(tmp_path, payloads))) == payloads

    def test_no_journal_has_no_records(self, tmp_path: pathlib.Path) -> None:
        """A run with nothing stored yet has no journal: no records, nothing to trim."""
        assert list(journal.records(tmp_path / "parts.journal")) == []
        journal.trim(tmp_path / "parts.journal")
        assert not (tmp_path / "parts.journal").exists()

    @pytest.mark.parametrize("cut", [1, 5, journal.HEADER.size, journal.HEADER.size + 3])
    def test_torn_last_record_is_not_read_and_is_trimmed(self, tmp_path: pathlib.Path, cut: int) -> None:
        """A last record cut anywhere (in its header or its payload) is not read; trim drops
        it, and the next append follows the last whole record."""
        path = filled(tmp_path, [b"kept", b"torn away"])
        whole = journal.HEADER.size + len(b"kept")
        os.truncate(path, whole + cut)
        assert list(journal.records(path)) == [b"kept"]
        journal.trim(path)
        assert path.stat().st_size == whole
        journal.append(path, b"next")
        assert list(journal.records(path)) == [b"kept", b"next"]

    def test_flipped_byte_ends_the_whole_records(self, tmp_path: pathlib.Path) -> None:
        """A record whose CRC, magic or payload no longer match ends what is read there."""
        path = filled(tmp_path, [b"kept", b"damaged", b"after"])
        data = bytearray(path.read_bytes())
        second = journal.HEADER.size + len(b"kept")
        for k in (second, second + 5, second + journal.HEADER.size + 2):
            flipped = bytearray(data)
            flipped[k] ^= 0x01
            path.write_bytes(flipped)
            assert list(journal.records(path)) == [b"kept"]

    def test_huge_length_is_not_allocated(self, tmp_path: pathlib.Path) -> None:
        """A header claiming more bytes than the file holds ends the records, without reading."""
        path = tmp_path / "parts.journal"
        path.write_bytes(journal.HEADER.pack(journal.MAGIC, 2**62, 0) + b"x" * 10)
        assert list(journal.records(path)) == []

    def test_fifo_is_refused_at_once(self, tmp_path: pathlib.Path) -> None:
        """A FIFO planted as the journal is an OSError, not a hang."""
        path = tmp_path / "parts.journal"
        os.mkfifo(path)
        with pytest.raises(NotRegularFileError):
            list(journal.records(path))

    def test_symlink_is_never_written_through(self, tmp_path: pathlib.Path) -> None:
        """A symbolic link planted as the journal is an OSError to append or trim, and the file
        it points to is left as it was."""
        target = tmp_path / "elsewhere"
        target.write_bytes(b"precious")
        path = tmp_path / "parts.journal"
        path.symlink_to(target)
        with pytest.raises(OSError):
            journal.append(path, b"record")
        with pytest.raises(OSError):
            journal.trim(path)
        assert target.read_bytes() == b"precious"
