"""What the pyarrow fixture writers share (write_parquet.py, write_arrow.py): the documents of a
JSON Lines file as columns, and the six-row table of nested, nullable and dictionary columns
that the field tests read. Imported from the writers' own folder."""
import json

import pyarrow as pa


def read_documents(source, first=0, count=None):
    """The ids, texts and line numbers (from 1) of lines FIRST.. of SOURCE, COUNT of them."""
    ids, texts, numbers = [], [], []
    with open(source, encoding="utf-8") as f:
        for number, line in enumerate(f):
            if number < first or (count is not None and number >= first + count):
                continue
            doc = json.loads(line)
            ids.append(str(doc["id"]))
            texts.append(doc["text"])
            numbers.append(number + 1)
    return ids, texts, numbers


def features_table(files, groups, group):
    """Six rows: num (int64, row 5 null), meta (struct of content and lang; content null in row
    3, the whole struct null in row 4), dict (dictionary-encoded strings), count (int64), label
    (large_string). FILES, GROUPS and GROUP name the format's files and its row groups, plural
    and singular, in the texts."""
    texts = [
        "the quick brown fox jumps over the lazy dog near the river bank today",
        "a completely different sentence about %s and %s" % (files, groups),
        None,
        "never read: its struct is null",
        "yet another document, this one without an id of its own at all",
        "the last row of the file, in the third %s of two rows" % group,
    ]
    meta = pa.array(
        [{"content": t, "lang": "en"} for t in texts],
        pa.struct([("content", pa.string()), ("lang", pa.string())]),
        mask=pa.array([False, False, False, True, False, False]),
    )
    return pa.table({
        "num": pa.array([10, 11, 12, 13, None, 15], pa.int64()),
        "meta": meta,
        "dict": pa.array([t or "filler text for a dictionary row" for t in texts]).dictionary_encode(),
        "count": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
        "label": pa.array(["x%d" % i for i in range(6)], pa.large_string()),
    })
