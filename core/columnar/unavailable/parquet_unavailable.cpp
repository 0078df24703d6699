// core/columnar in a build without Apache Arrow: every Parquet input is refused by name.
#include "parquet_file.h"

namespace neardup::columnar {

bool parquetCompiledIn() {
    return false;
}

std::vector<RowGroupSpan> parquetRowGroups(const std::string& path, uint64_t) {
    throw ColumnarError(notCompiledInMessage(path));
}

struct ParquetRowReader::Impl {};

ParquetRowReader::ParquetRowReader(std::string, std::string, std::string) {}
ParquetRowReader::~ParquetRowReader() = default;

const RowGroupColumns& ParquetRowReader::read(const std::string& path, uint64_t, uint32_t,
                                              std::string_view, uint64_t) {
    throw ColumnarError(notCompiledInMessage(path));
}

void copyParquetRows(const std::string& source, const ParquetRowSelection&,
                     const std::function<void(std::string_view)>&,
                     const std::function<void(uint64_t)>&) {
    throw ColumnarError(notCompiledInMessage(source));
}

struct ParquetListWriter::Impl {};

ParquetListWriter::ParquetListWriter(const std::string& path, std::vector<Column>,
                                     std::function<void(std::string_view)>, uint64_t) {
    throw ColumnarError("cannot write '" + path +
                        "': it is named .parquet and Parquet support is not compiled in (this "
                        "build has no Apache Arrow: run scripts/install-deps.sh, then configure "
                        "and build again)");
}
ParquetListWriter::~ParquetListWriter() = default;
void ParquetListWriter::addString(std::string_view) {}
void ParquetListWriter::addInt64(int64_t) {}
void ParquetListWriter::addBool(bool) {}
void ParquetListWriter::addDouble(double) {}
void ParquetListWriter::addNull() {}
void ParquetListWriter::endRow() {}
void ParquetListWriter::close() {}

}  // namespace neardup::columnar
