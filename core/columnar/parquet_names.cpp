// What every build knows about Parquet, with or without Arrow: which names are Parquet and the
// message for a build that cannot read them.
#include <algorithm>
#include <cctype>
#include <string>

#include "parquet_file.h"

namespace neardup::columnar {

bool isParquetName(std::string_view path) {
    constexpr std::string_view kSuffix = ".parquet";
    if (path.size() < kSuffix.size()) return false;
    const std::string_view tail = path.substr(path.size() - kSuffix.size());
    return std::equal(tail.begin(), tail.end(), kSuffix.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
    });
}

std::string notCompiledInMessage(const std::string& path) {
    return "cannot read '" + path +
           "': it is a Parquet file and Parquet support is not compiled in (this build has no "
           "Apache Arrow: run scripts/install-deps.sh, then configure and build again)";
}

}  // namespace neardup::columnar
