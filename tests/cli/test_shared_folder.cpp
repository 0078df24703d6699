// A shared output folder (mode 0777, no sticky bit) in which a second, unprivileged user plants
// links at the names the next processes' temporaries will have (".out.jsonl.tmp-<pid>" for the
// PIDs about to be given out), pointing at a file of root's. A run writing its outputs into that
// folder must leave the victim as it was and write its outputs whole. Needs root (to create the
// user, removed at the end) and useradd; skipped otherwise.
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_process.h"
#include "test_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using testsupport::readFile;

namespace {

constexpr int kPlanted = 400;  // PIDs ahead of the last one given out

// The last PID the kernel gave out (this PID namespace), else this process's.
long lastPid() {
    std::ifstream in("/proc/sys/kernel/ns_last_pid");
    long pid = 0;
    return (in >> pid) ? pid : static_cast<long>(::getpid());
}

// Runs `command` as a program with its arguments; true when it exited 0.
bool runProgram(const QString& program, const QStringList& args) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(30000)) return false;
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

}  // namespace

class TestSharedFolder : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString user_;
    uid_t uid_ = 0;
    gid_t gid_ = 0;

    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }

    // Plants, as the other user, links named as the temporaries of the outputs `names` of the
    // next kPlanted processes, all pointing at `victim`. Returns how many were planted.
    int plantAsOtherUser(const std::string& folder, const std::vector<std::string>& names,
                         const std::string& victim, long& from) {
        from = lastPid() + 1;
        const pid_t child = ::fork();
        if (child == 0) {
            if (::setgid(gid_) != 0 || ::setuid(uid_) != 0) ::_exit(2);
            int planted = 0;
            for (long pid = from; pid < from + kPlanted; ++pid)
                for (const std::string& name : names) {
                    const std::string link = folder + "/." + name + ".tmp-" + std::to_string(pid);
                    if (::symlink(victim.c_str(), link.c_str()) == 0) ++planted;
                }
            ::_exit(planted == kPlanted * static_cast<int>(names.size()) ? 0 : 1);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        return WIFEXITED(status) && WEXITSTATUS(status) == 0
                   ? kPlanted * static_cast<int>(names.size())
                   : -1;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        if (::geteuid() != 0) QSKIP("needs root, to create a second user");
        const QString useradd = QStandardPaths::findExecutable(QStringLiteral("useradd"));
        if (useradd.isEmpty()) QSKIP("useradd is missing");
        user_ = QStringLiteral("ndshared%1").arg(::getpid());
        if (!runProgram(useradd, {QStringLiteral("-M"), QStringLiteral("-N"), QStringLiteral("-s"),
                                  QStringLiteral("/bin/false"), user_}))
            QSKIP("useradd could not create a user");
        const passwd* pw = ::getpwnam(user_.toUtf8().constData());
        QVERIFY(pw != nullptr);
        uid_ = pw->pw_uid;
        gid_ = pw->pw_gid;
        // The other user must reach the shared folder inside the test's.
        QCOMPARE(::chmod(dir_.path().toUtf8().constData(), 0755), 0);
    }

    void cleanupTestCase() {
        if (user_.isEmpty()) return;
        const QString userdel = QStandardPaths::findExecutable(QStringLiteral("userdel"));
        if (!userdel.isEmpty()) runProgram(userdel, {user_});
    }

    void plantedLinksAtTheNextTemporariesAreNotFollowed() {
        // The corpus, the project and the reference outputs are root's own, in private folders.
        const std::string input = path("in.jsonl");
        {
            std::ofstream out(input);
            for (int i = 0; i < 200; ++i) {
                const std::string text = "document number " + std::to_string(i % 70) +
                                         " about the shared folder and its planted links";
                out << "{\"id\":\"d" << i << "\",\"text\":\"" << text << "\"}\n";
            }
        }
        const auto run = [&](const std::string& project, const std::string& out,
                             const std::string& kept) {
            return testsupport::neardup(
                {QStringLiteral("run"), q(input), QStringLiteral("-p"), q(project),
                 QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("--out-jsonl"),
                 q(out), QStringLiteral("--out-kept"), q(kept), QStringLiteral("-q")});
        };
        const testsupport::CliResult ref =
            run(path("ref.ndw"), path("ref-out.jsonl"), path("ref-kept.txt"));
        QCOMPARE(ref.code, 0);

        const std::string shared = path("shared");
        fs::create_directories(shared);
        QCOMPARE(::chmod(shared.c_str(), 0777), 0);  // world-writable, no sticky bit
        const std::string victim = path("victim");
        std::ofstream(victim) << "root's file, not to be overwritten\n";
        QCOMPARE(::chmod(victim.c_str(), 0644), 0);
        const QByteArray before = QByteArray::fromStdString(readFile(victim));
        long from = 0;
        const int planted = plantAsOtherUser(shared, {"out.jsonl", "kept.txt"}, victim, from);
        QVERIFY2(planted > 0, "the other user could not plant its links");

        const testsupport::CliResult res =
            run(path("p.ndw"), shared + "/out.jsonl", shared + "/kept.txt");
        QVERIFY2(res.code == 0, qPrintable(res.err));
        // The run's PID was among the planted ones: every PID given out since was.
        QVERIFY2(lastPid() < from + kPlanted, "other processes took the planted PIDs");
        QCOMPARE(QByteArray::fromStdString(readFile(victim)), before);
        struct stat st {};
        QCOMPARE(::lstat(victim.c_str(), &st), 0);
        QCOMPARE(st.st_uid, uid_t{0});
        QVERIFY(readFile(shared + "/out.jsonl") == readFile(path("ref-out.jsonl")));
        QVERIFY(readFile(shared + "/kept.txt") == readFile(path("ref-kept.txt")));
        // The outputs are root's regular files; the other user's links are left as they were.
        QCOMPARE(::lstat((shared + "/out.jsonl").c_str(), &st), 0);
        QVERIFY(S_ISREG(st.st_mode));
        QCOMPARE(st.st_uid, uid_t{0});
        int links = 0;
        for (const auto& entry : fs::directory_iterator(shared))
            links += entry.is_symlink() ? 1 : 0;
        QCOMPARE(links, planted);
    }
};

QTEST_GUILESS_MAIN(TestSharedFolder)
#include "test_shared_folder.moc"
