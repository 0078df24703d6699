#!/usr/bin/env python3
"""Writes the Parquet fixtures of test_parquet_input.cpp with pyarrow (Arrow's own writer), from
the project-local environment that scripts/install-deps.sh creates.

  write_parquet.py convert IN.jsonl OUT.parquet ROWS_PER_GROUP COMPRESSION [FIRST [COUNT]]
      the documents of IN.jsonl (lines FIRST.. of it, COUNT of them) as string columns id and
      text, in row groups of ROWS_PER_GROUP rows, pages compressed with COMPRESSION
      (zstd, snappy or none)
  write_parquet.py features OUT.parquet
      six rows in row groups of two: num (int64, row 5 null), meta (struct of content and
      lang; content null in row 3, the whole struct null in row 4), dict (dictionary-encoded
      strings), count (int64), label (large_string)
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def convert(source, target, rows_per_group, compression, first=0, count=None):
    ids, texts = [], []
    with open(source, encoding="utf-8") as f:
        for number, line in enumerate(f):
            if number < first or (count is not None and number >= first + count):
                continue
            doc = json.loads(line)
            ids.append(str(doc["id"]))
            texts.append(doc["text"])
    table = pa.table({"id": pa.array(ids, pa.string()), "text": pa.array(texts, pa.string())})
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
    if argv[1] == "convert":
        first = int(argv[6]) if len(argv) > 6 else 0
        count = int(argv[7]) if len(argv) > 7 else None
        convert(argv[2], argv[3], int(argv[4]), argv[5], first, count)
    elif argv[1] == "features":
        features(argv[2])
    else:
        sys.exit("unknown mode " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
