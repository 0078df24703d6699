// The shards of --out-dir (dataset_shards.h): JSON Lines shards in one streaming pass over the
// inputs (kept_lines.h), Parquet and Arrow shards one input at a time through core/columnar,
// then the metadata of `datasets` folders.
#include "dataset_shards.h"

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "arrow_ipc_file.h"
#include "cluster_annotation.h"
#include "dataset_metadata.h"
#include "export_ticker.h"
#include "input_pin.h"
#include "kept_lines.h"
#include "no_follow.h"
#include "output_file.h"

namespace neardup {

namespace fs = std::filesystem;

std::vector<std::string> namesBelowCommonFolder(const std::vector<InputFile>& files) {
    std::vector<std::string> names;
    if (files.empty()) return names;
    fs::path common = fs::path(files.front().path).parent_path();
    for (const InputFile& f : files) {
        const fs::path parent = fs::path(f.path).parent_path();
        // The longest leading run of components both paths share.
        fs::path shared;
        auto a = common.begin();
        auto b = parent.begin();
        for (; a != common.end() && b != parent.end() && *a == *b; ++a, ++b)
            shared /= *a;
        common = shared;
    }
    for (const InputFile& f : files)
        names.push_back(fs::path(f.path).lexically_relative(common).string());
    return names;
}

std::vector<std::string> shardNames(const ExportOptions& options,
                                    const std::vector<InputFile>& files) {
    if (options.shardNames.size() == files.size()) return options.shardNames;
    return namesBelowCommonFolder(files);
}

std::string shardNameProblem(const std::vector<InputFile>& files,
                             const std::vector<std::string>& names, const std::string& outDir) {
    std::unordered_map<std::string, std::size_t> first;
    for (std::size_t f = 0; f < files.size() && f < names.size(); ++f) {
        const std::string name = fs::path(names[f]).lexically_normal().string();
        const auto [at, inserted] = first.emplace(name, f);
        if (!inserted)
            return "refusing --out-dir '" + outDir + "': inputs '" + files[at->second].path +
                   "' and '" + files[f].path + "' would both be written to '" +
                   (fs::path(outDir) / name).string() + "'";
    }
    return {};
}

namespace {

OutputCompression compressionOf(const InputFile& file) {
    switch (file.compression) {
        case InputFile::Compression::Gzip:
            return OutputCompression::Gzip;
        case InputFile::Compression::Zstd:
            return OutputCompression::Zstd;
        case InputFile::Compression::None:
            break;
    }
    return OutputCompression::None;
}

// The rows of each columnar input that its shard holds, from the documents read from it.
std::vector<columnar::ParquetRowSelection> columnarSelections(const RunResult& run,
                                                              const std::vector<uint8_t>& columnar,
                                                              const DocumentTable& docs,
                                                              const ClusterAnnotation* annotation) {
    std::vector<columnar::ParquetRowSelection> rows(columnar.size());
    for (std::size_t f = 0; f < columnar.size(); ++f) {
        rows[f].annotate = annotation != nullptr;
        rows[f].clusterIdName = ClusterAnnotation::kClusterId;
        rows[f].clusterSizeName = ClusterAnnotation::kClusterSize;
        rows[f].removedName = ClusterAnnotation::kRemoved;
    }
    for (std::size_t i = 0; i < docs.size(); ++i) {
        const uint32_t f = docs.file[i];
        if (!columnar[f] || run.reference(i) || (!annotation && run.removed(i))) continue;
        columnar::ParquetRowSelection& s = rows[f];
        const std::size_t row = docs.line[i] - 1;  // rows are numbered from 1, like lines
        if (s.keep.size() <= row) s.keep.resize(row + 1, 0);
        s.keep[row] = 1;
        if (!annotation) continue;
        s.clusterId.resize(s.keep.size(), -1);
        s.clusterSize.resize(s.keep.size(), 1);
        s.removed.resize(s.keep.size(), 0);
        s.clusterId[row] = annotation->clusterId(i);
        s.clusterSize[row] = annotation->clusterSize(i);
        s.removed[row] = annotation->removed(i) ? 1 : 0;
    }
    return rows;
}

// The file `name` ("sub/part.jsonl") under the output folder, made through its subfolders'
// descriptors (openSubfoldersNoFollow): a link planted at a subfolder's name is refused.
std::unique_ptr<OutputFile> shardFile(const std::string& outDir, const std::string& name,
                                      OutputCompression compression) {
    const fs::path relative(name);
    const UniqueFd folder = openSubfoldersNoFollow(outDir, relative.parent_path().generic_string());
    return std::make_unique<OutputFile>(folder.get(), relative.filename().string(),
                                        (fs::path(outDir) / relative).string(), compression);
}

}  // namespace

void writeDatasetShards(const RunResult& run, const std::vector<InputFile>& files,
                        const DocumentTable& docs, const ExportOptions& options,
                        ExportTicker& ticker, std::vector<std::unique_ptr<OutputFile>>& written) {
    const std::vector<std::string> names = shardNames(options, files);
    // The reference's files have no shard: their documents are never written.
    std::vector<InputFile> shardFiles;
    std::vector<std::string> shardFileNames;
    for (std::size_t f = 0; f < files.size(); ++f)
        if (!files[f].reference) {
            shardFiles.push_back(files[f]);
            shardFileNames.push_back(names[f]);
        }
    if (const std::string problem = shardNameProblem(shardFiles, shardFileNames, options.outDir);
        !problem.empty())
        throw std::runtime_error(problem);
    std::optional<ClusterAnnotation> annotation;
    if (options.annotate) annotation.emplace(run);
    LineTargets lines;
    lines.sinks.assign(files.size(), nullptr);
    lines.annotation = annotation ? &*annotation : nullptr;
    lines.readAhead = options.readAhead;
    lines.threads = options.threads;
    lines.reader = options.reader;
    lines.project = options.project.project;
    std::vector<uint8_t> columnar(files.size(), 0);
    std::vector<OutputFile*> shard(files.size(), nullptr);
    std::error_code ec;  // the folder the user named, through whatever links its path holds
    fs::create_directories(options.outDir, ec);
    if (ec) throw std::runtime_error("cannot create '" + options.outDir + "': " + ec.message());
    for (std::size_t f = 0; f < files.size(); ++f) {
        if (files[f].reference) continue;
        columnar[f] = columnar::isColumnarName(files[f].path) ? 1 : 0;
        written.push_back(
            shardFile(options.outDir, names[f],
                      columnar[f] ? OutputCompression::None : compressionOf(files[f])));
        shard[f] = written.back().get();
        if (!columnar[f]) lines.sinks[f] = shard[f];
    }
    writeDocumentLines(run, files, docs, lines, ticker);
    bool anyColumnar = false;
    for (const uint8_t c : columnar)
        anyColumnar = anyColumnar || c;
    if (!anyColumnar) return;
    // A columnar shard is made from its input's columns, read again: only from the same file.
    if (const std::string problem = pinProblem(files); !problem.empty())
        throw InputError(problem + "; export refused");
    const std::vector<columnar::ParquetRowSelection> rows =
        columnarSelections(run, columnar, docs, lines.annotation);
    std::vector<uint8_t> hasDocuments(files.size(), 0);
    for (const uint32_t f : docs.file)
        hasDocuments[f] = 1;
    for (std::size_t f = 0; f < files.size(); ++f) {
        if (!columnar[f]) continue;
        OutputFile& out = *shard[f];
        const auto copy = columnar::isParquetName(files[f].path) ? columnar::copyParquetRows
                                                                 : columnar::copyArrowRows;
        try {
            copy(
                files[f].path, rows[f], [&](std::string_view bytes) { out.write(bytes); },
                [&](uint64_t) { ticker.tick(); });
        } catch (const std::exception&) {
            // An input the run could not read at all (its rejections say so: unreadable_file,
            // under --on-error skip) gave no document and has no shard, as in --out-jsonl,
            // whose lines it gave none of; a file that gave documents must be copied.
            if (hasDocuments[f]) throw;
            std::erase_if(written, [&](const auto& w) { return w.get() == &out; });
        }
    }
    // A `datasets` folder's metadata beside its mirrored shards, so that it loads as one.
    for (const DatasetMetadataFile& meta : datasetMetadataFiles(shardFiles, shardFileNames)) {
        written.push_back(shardFile(options.outDir, meta.name, OutputCompression::None));
        written.back()->write(mirroredMetadata(meta, options.annotate));
    }
}

}  // namespace neardup
