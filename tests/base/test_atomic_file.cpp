// AtomicFile: complete or absent, every byte as written whatever the sizes of the pieces, errors
// reported, and a large file written behind (sent to the disk and dropped from the page cache as
// it grows) instead of left to the kernel as gigabytes of dirty pages. In a folder others may
// write: a temporary's name that exists (a planted link, a file) is never opened, followed or
// truncated, the temporary is private (0600) while written, and the sweep of dead processes'
// temporaries removes only this program's regular files.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "no_follow.h"
#include "test_support.h"

using namespace neardup;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// Bytes in pieces of every size that matters to the buffer: a line at a time, pieces just under
// and over the 1 MiB buffer, and whole windows (8 MiB), in a deterministic mix.
std::vector<std::string> pieces(std::size_t total, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::size_t sizes[] = {1, 57, 4096, kMiB - 1, kMiB, kMiB + 3, 3 * kMiB, 8 * kMiB + 5};
    std::vector<std::string> out;
    std::size_t sum = 0;
    while (sum < total) {
        std::size_t size = sizes[rng() % std::size(sizes)];
        size = std::min(size, total - sum);
        std::string piece(size, '\0');
        for (std::size_t i = 0; i < size; i += 61)
            piece[i] = static_cast<char>('a' + rng() % 26);
        sum += size;
        out.push_back(std::move(piece));
    }
    return out;
}

// The fraction of the file's first `bytes` that is in the page cache.
double residentFraction(const std::string& path, std::size_t bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) return -1;
    const long page = ::sysconf(_SC_PAGESIZE);
    std::vector<unsigned char> resident((bytes + page - 1) / page);
    const int rc = ::mincore(map, bytes, resident.data());
    ::munmap(map, bytes);
    if (rc != 0) return -1;
    std::size_t in = 0;
    for (const unsigned char r : resident)
        in += r & 1;
    return static_cast<double>(in) / static_cast<double>(resident.size());
}

// The id of a process that has just ended (and was waited for).
pid_t deadPid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

std::string tempName(const std::string& target, long pid) {
    return "." + target + ".tmp-" + std::to_string(pid);
}

mode_t currentUmask() {
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return mask;
}

// Names in `dir`, sorted.
QStringList namesIn(const std::string& dir) {
    QStringList names;
    for (const auto& entry : fs::directory_iterator(dir))
        names << QString::fromStdString(entry.path().filename().string());
    names.sort();
    return names;
}

// tmpfs keeps every page in memory whatever the writer asks: nothing to write behind.
bool onTmpfs(const std::string& dir) {
    struct statfs st {};
    return ::statfs(dir.c_str(), &st) == 0 && st.f_type == 0x01021994;
}

}  // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT
  private slots:
    // A link planted at the temporary's name (as another user of a shared folder can) is not
    // followed: what it points to is unchanged, the output is written, the link is left.
    void plantedLinkAtTheTemporaryIsNotFollowed() {
        QTemporaryDir dir, elsewhere;
        const std::string base = dir.path().toStdString();
        const std::string victim = elsewhere.filePath(QStringLiteral("victim")).toStdString();
        std::ofstream(victim) << "precious";
        const std::string link = base + "/" + tempName("out.jsonl", ::getpid());
        QCOMPARE(::symlink(victim.c_str(), link.c_str()), 0);
        {
            AtomicFile file(base + "/out.jsonl");
            file.write("written\n");
            file.commit();
        }
        QCOMPARE(testsupport::readFile(victim), std::string("precious"));
        QCOMPARE(testsupport::readFile(base + "/out.jsonl"), std::string("written\n"));
        QVERIFY(fs::is_symlink(link));
        QCOMPARE(namesIn(base).size(), 2);  // the output and the link: no temporary left
    }

    // An output folder's subfolders are made and entered without following a link: a file
    // written through the descriptor lands under the folder, and a link planted at a
    // subfolder's name is refused, naming it, with nothing made where it points.
    void subfoldersAreNeverEnteredThroughALink() {
        QTemporaryDir dir, elsewhere;
        const std::string base = dir.path().toStdString();
        {
            const UniqueFd made = openSubfoldersNoFollow(base, "a/b");
            AtomicFile file(made.get(), "part.jsonl", base + "/a/b/part.jsonl");
            file.write("written\n");
            file.commit();
        }
        QCOMPARE(testsupport::readFile(base + "/a/b/part.jsonl"), std::string("written\n"));
        const std::string link = base + "/a/linked";
        QCOMPARE(::symlink(elsewhere.path().toStdString().c_str(), link.c_str()), 0);
        try {
            openSubfoldersNoFollow(base, "a/linked/c");
            QFAIL("a linked subfolder was entered");
        } catch (const std::runtime_error& e) {
            QVERIFY2(
                std::string(e.what()).find(link + "': it is a symbolic link") != std::string::npos,
                e.what());
        }
        QVERIFY(namesIn(elsewhere.path().toStdString()).empty());
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, openSubfoldersNoFollow(base, "a/../../x"));
    }

    // A file at the temporary's name (this process's id: a live one) is neither truncated nor
    // removed; the output goes through another name.
    void existingTemporaryNameIsNotTruncated() {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        const std::string taken = base + "/" + tempName("out.jsonl", ::getpid());
        std::ofstream(taken) << "someone's";
        {
            AtomicFile file(base + "/out.jsonl");
            file.write("mine");
            file.commit();
        }
        QCOMPARE(testsupport::readFile(taken), std::string("someone's"));
        QCOMPARE(testsupport::readFile(base + "/out.jsonl"), std::string("mine"));
        QCOMPARE(namesIn(base).size(), 2);
    }

    // Private while written (0600), then the mode a new file gets (0666 less the umask).
    void temporaryIsPrivateUntilRenamed() {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        AtomicFile file(base + "/out.jsonl");
        file.write("x");
        const QStringList names = namesIn(base);
        QCOMPARE(names.size(), 1);
        QVERIFY(names[0].startsWith(QStringLiteral(".out.jsonl.tmp-")));
        struct stat st {};
        QCOMPARE(::lstat((base + "/" + names[0].toStdString()).c_str(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t{0600});
        file.commit();
        QCOMPARE(::lstat((base + "/out.jsonl").c_str(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0666 & ~currentUmask()));
    }

    // What dead processes left for this output goes as it is next written: their regular files
    // under the exact naming. A live process's temporary, another output's, a folder and a
    // link named like one stay, and what the link points to is untouched.
    void deadProcessesTemporariesAreSwept() {
        QTemporaryDir dir, elsewhere;
        const std::string base = dir.path().toStdString();
        const std::string victim = elsewhere.filePath(QStringLiteral("victim")).toStdString();
        std::ofstream(victim) << "precious";
        const pid_t dead = deadPid(), dead2 = deadPid();
        const std::string gone = tempName("out.jsonl.gz", dead);
        const std::string goneSuffixed = tempName("out.jsonl.gz", dead) + "-0123abcd";
        const std::string live = tempName("out.jsonl.gz", 1);  // init never ends
        const std::string other = tempName("other.jsonl", dead);
        const std::string folder = tempName("out.jsonl.gz", dead2) + "-89abcdef";
        const std::string link = tempName("out.jsonl.gz", dead2);
        const std::string lookalike = tempName("out.jsonl.gz", dead) + "x";
        for (const std::string& name : {gone, goneSuffixed, live, other, lookalike})
            std::ofstream(base + "/" + name) << std::string(1000, 'z');
        fs::create_directory(base + "/" + folder);
        QCOMPARE(::symlink(victim.c_str(), (base + "/" + link).c_str()), 0);
        {
            AtomicFile file(base + "/out.jsonl.gz");
            file.write("new");
            file.commit();
        }
        QStringList expected{QStringLiteral("out.jsonl.gz")};
        for (const std::string& name : {live, other, folder, link, lookalike})
            expected << QString::fromStdString(name);
        expected.sort();
        QCOMPARE(namesIn(base), expected);
        QCOMPARE(testsupport::readFile(victim), std::string("precious"));
        QCOMPARE(tempFileOwner(goneSuffixed), long{dead});
        QCOMPARE(tempFileOwner(gone), long{dead});
        QCOMPARE(tempFileOwner(lookalike), 0L);
    }

    // 40 MiB in pieces of every size: the target appears only at commit, byte for byte, and the
    // temporary is gone.
    void writesEveryByteInOrder() {
        QTemporaryDir dir;
        const std::string target = dir.filePath(QStringLiteral("out.jsonl")).toStdString();
        const std::vector<std::string> parts = pieces(40 * kMiB + 12345, 7);
        std::string expected;
        {
            AtomicFile file(target);
            for (const std::string& p : parts) {
                file.write(p);
                expected += p;
            }
            QVERIFY(!fs::exists(target));
            file.finish();
            QVERIFY(!fs::exists(target));
            file.commit();
        }
        QCOMPARE(fs::file_size(target), expected.size());
        QVERIFY(testsupport::readFile(target) == expected);
        for (const auto& entry : fs::directory_iterator(dir.path().toStdString()))
            QCOMPARE(QString::fromStdString(entry.path().filename().string()),
                     QStringLiteral("out.jsonl"));
    }

    // An empty piece (an empty line's text, a string_view with no data at all) writes nothing
    // and reads no bytes: under UndefinedBehaviorSanitizer a copy from its null pointer fails.
    void emptyPiecesWriteNothing() {
        QTemporaryDir dir;
        const std::string target = dir.filePath(QStringLiteral("empty.txt")).toStdString();
        {
            AtomicFile file(target);
            file.write(std::string_view{});
            file.write("abc");
            file.write(std::string_view{});
            file.commit();
        }
        QCOMPARE(testsupport::readFile(target), std::string("abc"));
    }

    // A file given up before commit leaves nothing, however much was written behind.
    void abandonedFileLeavesNothing() {
        QTemporaryDir dir;
        const std::string target = dir.filePath(QStringLiteral("out.jsonl")).toStdString();
        {
            AtomicFile file(target);
            for (const std::string& p : pieces(20 * kMiB, 3))
                file.write(p);
        }
        QVERIFY(fs::is_empty(dir.path().toStdString()));
    }

    // Errors are not lost to the buffering: a device that is full fails the file, naming it.
    void fullDeviceFails() {
        if (!fs::exists("/dev/full")) QSKIP("no /dev/full");
        AtomicFile file("/dev/full");
        bool failed = false;
        try {
            for (const std::string& p : pieces(3 * kMiB, 5))
                file.write(p);
            file.finish();
        } catch (const std::runtime_error& e) {
            failed = std::string(e.what()).find("/dev/full") != std::string::npos;
        }
        QVERIFY(failed);
    }

    // Written behind: after finish, the file's early windows are no longer in the page cache,
    // while the same bytes written plainly (the control) are still there.
    void largeFileIsWrittenBehind() {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        if (onTmpfs(base)) QSKIP("the temporary directory is on tmpfs");
        const std::string behind = base + "/behind.bin", plain = base + "/plain.bin";
        const std::vector<std::string> parts = pieces(96 * kMiB, 11);
        {
            std::ofstream out(plain, std::ios::binary);
            for (const std::string& p : parts)
                out.write(p.data(), static_cast<std::streamsize>(p.size()));
        }
        AtomicFile file(behind);
        for (const std::string& p : parts)
            file.write(p);
        file.commit();
        // The last windows may still be cached (they were synced, not dropped); the first 48 MiB
        // were dropped as the file grew.
        const double control = residentFraction(plain, 48 * kMiB);
        const double dropped = residentFraction(behind, 48 * kMiB);
        QVERIFY2(control > 0.9, qPrintable(QStringLiteral("control %1").arg(control)));
        QVERIFY2(dropped >= 0 && dropped < 0.1, qPrintable(QStringLiteral("%1").arg(dropped)));
    }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
