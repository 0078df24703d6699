// What no output may land on besides the run's own inputs and project: a project given as the
// reference (its file, companions and sidecar folder), any other NearDup project, the inputs of
// `truth` and `gen` and each other, and the folders given as inputs or reference (the next run of
// that folder would read the output back as documents). Every case runs `neardup` as a process,
// as a user would, and checks that nothing was replaced or created.
#include <QTest>
#include <filesystem>
#include <initializer_list>
#include <string>

#include "test_support.h"
#include "user_files_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using testsupport::readFile;
using namespace userfiles;

class TestOutputTargets : public CorpusFixture {
    Q_OBJECT

    // Asserts that `r` was refused (exit 1) with a message containing every one of `says`.
    static void expectRefused(const Result& r, std::initializer_list<const char*> says,
                              const char* what) {
        const QByteArray context = QByteArray(what) + ": " + r.err.toUtf8();
        QVERIFY2(r.code == 1, context.constData());
        for (const char* s : says)
            QVERIFY2(r.err.contains(QLatin1String(s)), context.constData());
    }

    // Asserts that `file` still holds `before`.
    void expectKept(const std::string& file, const std::string& before, const char* what) {
        QVERIFY2(readFile(path(file)) == before, what);
    }

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
        for (const auto& [name, seed] : {std::pair{"old.jsonl", "1"}, {"new.jsonl", "2"}}) {
            const Result g = command({"gen", "--docs", "200", "--seed", seed, "--out", name,
                                      "--truth", std::string(name) + ".truth.json"});
            QVERIFY2(g.code == 0, qPrintable(g.err));
        }
        Result p = command({"run", "old.jsonl", "-p", "ref.ndw", "-q"});
        QVERIFY2(p.code == 0, qPrintable(p.err));
        p = command({"run", "new.jsonl", "-p", "new.ndw", "--reference", "ref.ndw", "-q"});
        QVERIFY2(p.code == 0, qPrintable(p.err));
        QVERIFY(fs::is_directory(path("ref.ndw.d")));
    }

    // A project given as the reference is as much the user's as the run's own project: no
    // command writes onto it, its companions or into its sidecar folder.
    void theReferenceProjectIsNeverOverwritten() {
        const std::string ref = readFile(path("ref.ndw"));
        expectRefused(command({"run", "new.jsonl", "-p", "new.ndw", "--reference", "ref.ndw", "-q",
                               "--out-kept", "ref.ndw"}),
                      {"--out-kept", "ref.ndw", "project"}, "run --out-kept onto the reference");
        expectKept("ref.ndw", ref, "run --out-kept onto the reference");
        expectRefused(command({"recluster", "-p", "new.ndw", "--run", "1", "-t", "0.9",
                               "--out-kept", "ref.ndw"}),
                      {"--out-kept", "ref.ndw"}, "recluster --out-kept onto the reference");
        expectRefused(command({"export", "-p", "new.ndw", "--out-kept", "ref.ndw"}),
                      {"--out-kept", "ref.ndw"}, "export --out-kept onto the reference");
        expectRefused(command({"report", "-p", "new.ndw", "--out", "ref.ndw"}),
                      {"--out", "ref.ndw"}, "report --out onto the reference");
        expectKept("ref.ndw", ref, "recluster, export or report onto the reference");
        // The companions, whether they exist now or not, and the sidecar folder.
        expectRefused(command({"export", "-p", "new.ndw", "--out-kept", "ref.ndw-wal"}),
                      {"--out-kept", "ref.ndw-wal"}, "export onto the reference's -wal");
        QVERIFY(!fs::exists(path("ref.ndw-wal")));
        expectRefused(command({"run", "new.jsonl", "-p", "new.ndw", "--reference", "ref.ndw", "-q",
                               "--out-dir", "ref.ndw.d"}),
                      {"--out-dir", "ref.ndw.d", "sidecar"}, "run --out-dir onto the sidecar");
        expectRefused(
            command({"export", "-p", "new.ndw", "--out-removed", "./ref.ndw.d/../ref.ndw.d/x"}),
            {"--out-removed", "ref.ndw.d", "sidecar"}, "export into the sidecar");
        QVERIFY(!fs::exists(path("ref.ndw.d/new.jsonl")));
        QVERIFY(!fs::exists(path("ref.ndw.d/x")));
        // One refused run recorded nothing in either project.
        QCOMPARE(testsupport::sqlRows(path("ref.ndw"), "SELECT count(*) FROM runs"),
                 QStringList{QStringLiteral("1")});
    }

    // `truth` and `gen` write only where `run` would: never onto an input, a project or the
    // other output.
    void truthAndGenKeepTheirInputsAndProjects() {
        fs::copy_file(path("old.jsonl"), path("c.jsonl"));
        const std::string c = readFile(path("c.jsonl")), ref = readFile(path("ref.ndw"));
        expectRefused(command({"truth", "c.jsonl", "--out", "c.jsonl"}),
                      {"--out", "c.jsonl", "input"}, "truth onto its input");
        expectKept("c.jsonl", c, "truth onto its input");
        expectRefused(command({"truth", "c.jsonl", "--out", "ref.ndw"}), {"--out", "ref.ndw"},
                      "truth onto a project");
        expectRefused(command({"gen", "--docs", "10", "--out", "x.jsonl", "--truth", "x.jsonl"}),
                      {"--out", "--truth", "x.jsonl", "same file"}, "gen's outputs on one file");
        QVERIFY(!fs::exists(path("x.jsonl")));
        expectRefused(command({"gen", "--docs", "10", "--out", "x.jsonl", "--truth", "ref.ndw"}),
                      {"--truth", "ref.ndw"}, "gen --truth onto a project");
        expectRefused(
            command({"gen", "--docs", "10", "--out", "ref.ndw.d/g.jsonl", "--truth", "g.json"}),
            {"--out", "sidecar"}, "gen into a project's sidecar");
        expectKept("ref.ndw", ref, "truth or gen onto a project");
        QVERIFY(!fs::exists(path("ref.ndw.d/g.jsonl")));
        expectRefused(command({"eval", "--truth", "old.jsonl.truth.json", "--clusters", "c.jsonl",
                               "--json", "c.jsonl"}),
                      {"--json", "c.jsonl", "input"}, "eval --json onto its input");
        expectKept("c.jsonl", c, "eval --json onto its input");
        // Elsewhere they still write.
        const Result r = command({"truth", "c.jsonl", "--out", "c.truth.json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    // `bench --json` is checked before any benchmarking: never onto a project (the one
    // --clustering-from reads included) nor into the work folder whose corpora the next
    // benchmark reuses.
    void benchKeepsProjectsAndItsWorkFolder() {
        const std::string ref = readFile(path("ref.ndw"));
        expectRefused(command({"bench", "--sizes", "10K", "--no-kernels", "--json", "ref.ndw"}),
                      {"--json", "ref.ndw", "project"}, "bench --json onto a project");
        expectRefused(command({"bench", "--clustering-from", "ref.ndw", "--json", "ref.ndw"}),
                      {"--json", "ref.ndw"}, "bench --json onto the project it reads");
        expectKept("ref.ndw", ref, "bench --json onto a project");
        fs::create_directories(path("bench-work"));
        expectRefused(command({"bench", "--sizes", "10K", "--no-kernels", "--work-dir",
                               "bench-work", "--json", "bench-work/report.json"}),
                      {"--json", "bench-work"}, "bench --json into its work folder");
        QVERIFY(fs::is_empty(path("bench-work")));
    }

    // An output in a folder given as an input or reference would be read back as documents by
    // the next run of that folder: refused, naming the output and the folder.
    void nothingIsWrittenIntoAnInputFolder() {
        fs::create_directories(path("data"));
        fs::copy_file(path("old.jsonl"), path("data/sample.jsonl"));
        fs::create_directory_symlink(path("data"), path("link"));
        expectRefused(command({"run", "data/", "-p", "d.ndw", "-q", "--out-dir", "data/dedup"}),
                      {"--out-dir", "data/dedup", "input folder", "/data'"},
                      "run --out-dir into the input folder");
        QVERIFY(!fs::exists(path("data/dedup")));
        expectRefused(
            command({"run", "data", "-p", "d.ndw", "-q", "--out-jsonl", "data/dedup.jsonl"}),
            {"--out-jsonl", "input folder"}, "run --out-jsonl into the input folder");
        expectRefused(
            command({"run", "./data/../data", "-p", "d.ndw", "-q", "--out-kept", "link/kept.txt"}),
            {"--out-kept", "input folder"}, "an output through a link into the folder");
        expectRefused(command({"run", "link", "-p", "d.ndw", "-q", "--out-dir", "data/x"}),
                      {"--out-dir", "input folder"}, "--out-dir into a folder given by a link");
        expectRefused(command({"run", "new.jsonl", "-p", "d.ndw", "-q", "--reference", "data",
                               "--summary-json", "data/summary.json"}),
                      {"--summary-json", "input folder"}, "an output into the reference folder");
        expectRefused(command({"truth", "data", "--out", "data/truth.json"}),
                      {"--out", "input folder"}, "truth into its input folder");
        QVERIFY(!fs::exists(path("data/dedup.jsonl")));
        QVERIFY(!fs::exists(path("data/summary.json")));
        QVERIFY(!fs::exists(path("data/truth.json")));
        QVERIFY(!fs::exists(path("d.ndw")));
        // Beside the folder is fine, and a second run reads what the first did.
        Result r = command({"run", "data", "-p", "d.ndw", "-q", "--out-dir", "data.dedup",
                            "--summary-json", "s.json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(fs::exists(path("data.dedup/sample.jsonl")));
    }
};

QTEST_GUILESS_MAIN(TestOutputTargets)
#include "test_output_targets.moc"
