// Working inside a folder through its descriptor without ever following a symbolic link: what
// the sweeps of dead processes' leftovers use, in an output folder and in a project's sidecar
// folder. A folder that other users may write can hold links and files planted at any name; a
// sweep that only ever calls fstatat(AT_SYMLINK_NOFOLLOW), unlinkat() and openat(O_NOFOLLOW)
// relative to descriptors removes at most a name in that folder, never what a link points to.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "unique_fd.h"

namespace neardup {

// The names in the folder open as `dirFd` ("." and ".." left out), sorted; empty when it cannot
// be read. The descriptor's position is not moved (the folder is read through a duplicate).
std::vector<std::string> namesIn(int dirFd);

// The folder `path` opened for *at() calls (O_DIRECTORY, following links in the path as given:
// a user's output folder may be reached through one). Not valid, errno set, when it cannot be.
UniqueFd openFolder(const std::string& path);

// The folder `relative` ("a/b"; empty: `root` itself) under the folder `root`, each of its
// folders created where missing (mode 0777 less the umask) and opened with O_NOFOLLOW, so that
// a file made through the descriptor lands under `root` and nowhere else: an output folder's
// subfolders mirror the inputs', and a link planted at one of their names (to another user's
// files, say) is refused, never followed. `root` itself may be reached through a link: the user
// named it. Throws std::runtime_error naming the folder and what is wrong with it.
UniqueFd openSubfoldersNoFollow(const std::string& root, const std::string& relative);
// Why a subfolder of an output folder that is a link is refused, naming it.
std::string linkedSubfolderRefusal(const std::string& shown);

// True when no process `pid` exists here (kill(pid, 0) fails with ESRCH). A process of another
// user exists (EPERM); so does one in another PID namespace that shares this PID, and that
// case cannot be told apart on a folder shared between machines or containers.
bool processGone(long pid);

// True when `name` in `dirFd` is a regular file (not followed when it is a link) owned by the
// effective user: what a sweep may remove as something this program made.
bool ownRegularFile(int dirFd, const std::string& name);

// Removes the folder `name` in `dirFd` and everything under it, without following any link:
// nothing happens unless `name` itself is a real folder owned by the effective user; links
// inside are removed as links (what they point to is never touched), sub-folders are opened with
// O_NOFOLLOW and emptied the same way. False when something could not be removed.
bool removeTreeNoFollow(int dirFd, const std::string& name);

}  // namespace neardup
