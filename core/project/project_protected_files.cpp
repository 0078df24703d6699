#include "project_protected_files.h"

#include <filesystem>

#include "project_schema.h"
#include "project_store.h"

namespace neardup {

// The output room recognizes a project by its header without this room's schema.
static_assert(kProjectApplicationId == schema::kApplicationId);

ProtectedFiles protectedFiles(const ProjectStore& store) {
    ProtectedFiles out(store.path());
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::absolute(store.path(), ec).parent_path();
    for (const DatasetFile& f : store.datasetFiles()) {
        std::string path = f.file.path;
        if (!path.empty() && path.front() != '/' && !ec)
            path = (dir / path).lexically_normal().string();
        out.inputs.push_back({std::move(path), f.datasetId});
    }
    return out;
}

}  // namespace neardup
