#!/usr/bin/env python3
"""Writes the Parquet fixtures of test_parquet_input.cpp with pyarrow (Arrow's own writer), from
the project-local environment that scripts/install-deps.sh creates.

  write_parquet.py convert IN.jsonl OUT.parquet ROWS_PER_GROUP COMPRESSION [FIRST [COUNT]]
      the documents of IN.jsonl (lines FIRST.. of it, COUNT of them) as string columns id and
      text, in row groups of ROWS_PER_GROUP rows, pages compressed with COMPRESSION
      (zstd, snappy or none)
  write_parquet.py rich IN.jsonl OUT.parquet ROWS_PER_GROUP COMPRESSION [FIRST [COUNT]]
      as convert, with more columns than id and text, of other types: n (int64, the line
      number), url (large_string), meta (struct of lang and words, int32), and key-value
      metadata on the schema ("source": "neardup test")
  write_parquet.py features OUT.parquet
      six rows in row groups of two: num (int64, row 5 null), meta (struct of content and
      lang; content null in row 3, the whole struct null in row 4), dict (dictionary-encoded
      strings), count (int64), label (large_string)
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def convert(source, target, rows_per_group, compression, first=0, count=None, rich=False):
    ids, texts, numbers = [], [], []
    with open(source, encoding="utf-8") as f:
        for number, line in enumerate(f):
            if number < first or (count is not None and number >= first + count):
                continue
            doc = json.loads(line)
            ids.append(str(doc["id"]))
            texts.append(doc["text"])
            numbers.append(number + 1)
    columns = {"id": pa.array(ids, pa.string()), "text": pa.array(texts, pa.string())}
    if rich:
        columns["n"] = pa.array(numbers, pa.int64())
        columns["url"] = pa.array(["https://example.org/%d" % n for n in numbers],
                                  pa.large_string())
        columns["meta"] = pa.array(
            [{"lang": "en", "words": len(t.split())} for t in texts],
            pa.struct([("lang", pa.string()), ("words", pa.int32())]))
    table = pa.table(columns)
    if rich:
        table = table.replace_schema_metadata({"source": "neardup test"})
    pq.write_table(table, target, row_group_size=rows_per_group,
                   compression=None if compression == "none" else compression)


def features(target):
    texts = [
        "the quick brown fox jumps over the lazy dog near the river bank today",
        "a completely different sentence about parquet files and row groups",
        None,
        "never read: its struct is null",
        "yet another document, this one without an id of its own at all",
        "the last row of the file, in the third row group of two rows",
    ]
    meta = pa.array(
        [{"content": t, "lang": "en"} for t in texts],
        pa.struct([("content", pa.string()), ("lang", pa.string())]),
        mask=pa.array([False, False, False, True, False, False]),
    )
    table = pa.table({
        "num": pa.array([10, 11, 12, 13, None, 15], pa.int64()),
        "meta": meta,
        "dict": pa.array([t or "filler text for a dictionary row" for t in texts]).dictionary_encode(),
        "count": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
        "label": pa.array(["x%d" % i for i in range(6)], pa.large_string()),
    })
    pq.write_table(table, target, row_group_size=2, compression="snappy")


def main(argv):
    if argv[1] in ("convert", "rich"):
        first = int(argv[6]) if len(argv) > 6 else 0
        count = int(argv[7]) if len(argv) > 7 else None
        convert(argv[2], argv[3], int(argv[4]), argv[5], first, count, argv[1] == "rich")
    elif argv[1] == "features":
        features(argv[2])
    else:
        sys.exit("unknown mode " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
