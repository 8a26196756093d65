"""A file's bytes as the check reads them, the same for every way of reading a revision.

A Python source is decoded as Python decodes it (PEP 263): a UTF-8 byte order mark, else a
coding cookie in the first two lines, else UTF-8. Bytes that encoding cannot decode are kept as
lone surrogates (PEP 383, `surrogateescape`): the text is whole and nothing is lost, and
Python's parser refuses it as Python refuses the file, so the check reports a parse error on
the source instead of reading it as empty or missing. A cookie naming an encoding Python does
not know is read as UTF-8.

Any other file (a doc page) is UTF-8, with what does not decode replaced by U+FFFD: its lines
are shown on GitHub and must stay valid text.
"""

from __future__ import annotations

import hashlib
import io

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")


def git_blob_id(data: bytes) -> str:
    """The id git gives a blob of `data`, so caches keyed by it are shared across ways of reading."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def decode(path: str, data: bytes) -> str:
    """The text of the file at `path` whose content is `data`."""
    if not path.endswith(PYTHON_SUFFIXES):
        return data.decode("utf-8", errors="replace")
    import tokenize  # only Python sources name their encoding: reading a page needs none of it

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown encoding, or a cookie that contradicts the BOM
        encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
    return data.decode(encoding, errors="surrogateescape")
