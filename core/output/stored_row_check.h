// A stored row is used only on the input line it names. A project's rows give each document's
// byte offset, length and id; before a row's line is copied into an output, the line found
// there must start at that offset, end after that length, and carry that id, so a damaged or
// tampered row (an offset moved within the file's range) is refused instead of exporting a line
// cut mid-record or another document under the removed one's name. Checked on the bytes the
// export reads anyway: no second pass over the input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jsonl_reader.h"

namespace neardup {

class StoredRowCheck {
  public:
    explicit StoredRowCheck(const ReaderOptions& reader);

    // What is wrong with the row of the line of `length` bytes at `at` in `data` (a chunk of
    // whole lines of its file, so a line starts at 0; `fileStart`: the chunk starts the file,
    // whose first line may follow a byte order mark), stored with `id` as the document of file
    // line `lineNo`, or "" when the line is that document's.
    std::string problem(std::string_view data, bool fileStart, std::size_t at, uint32_t length,
                        std::string_view id, uint64_t lineNo);

  private:
    std::vector<std::string> idPath_;
    std::string idField_;
    std::string padded_;  // the line with simdjson's padding after it
};

}  // namespace neardup
