// A project's sidecar folder "<project>.d": its signature caches, rejected lines, read
// checkpoints, run locks and resume records, and by default the spill folders of its runs.
//
// A project may come from someone else (a tarball can carry a link named "P.ndw.d"), and its
// folder may be shared with other users: the sidecar is opened once, with O_NOFOLLOW |
// O_DIRECTORY, checked on the descriptor, and then used through that descriptor (openat,
// unlinkat, renameat, fstatat), so that swapping the name for a link after the check changes
// nothing. A sidecar that is a symbolic link, not a folder, or owned by another user is refused
// (SidecarRefused, one line saying why) by everything that writes in it: a run, a resume, the
// recovery of dead runs that export, relocate and the workbench do as they open a project.
#pragma once

#include <string>

#include "project_store.h"
#include "unique_fd.h"

namespace neardup {

// The project file named `given`: a project named through a link is the file the link leads to,
// so that its sidecar folder (caches, lock, resume records) sits beside that file whichever name
// opened it: two names never split them. Any other name is used as given (a new project is
// created at it).
std::string projectFile(const std::string& given);

// A sidecar folder that NearDup will not write in, and why.
class SidecarRefused : public StoreError {
  public:
    using StoreError::StoreError;
};

class Sidecar {
  public:
    Sidecar() = default;

    // The sidecar folder of the project file `projectPath`, created (mode 0755 less the umask)
    // when missing and `create` is set. Not open (!valid()) for an in-memory project, or when
    // it is missing and `create` is not set. Throws SidecarRefused when it is a symbolic link,
    // not a folder, or another user's; StoreError when it cannot be created or opened.
    static Sidecar open(const std::string& projectPath, bool create);

    bool valid() const { return fd_.valid(); }
    int fd() const { return fd_.get(); }
    // "<project>.d", as messages name it.
    const std::string& path() const { return path_; }
    // A file in it, as messages name it.
    std::string shown(const std::string& name) const { return path_ + "/" + name; }

  private:
    std::string path_;
    UniqueFd fd_;
};

// Why the sidecar folder of `projectPath` is refused (see above), or "" when it is usable or
// missing. Never throws.
std::string sidecarProblem(const std::string& projectPath);

}  // namespace neardup
