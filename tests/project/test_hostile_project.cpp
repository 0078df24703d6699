// A project file from elsewhere is data: every command that opens a project (run, export, report,
// recluster, relocate) and the workbench's open (ProjectStore, ProjectQueries) refuse a project
// whose schema is not the one NearDup writes, naming what differs, before any of its SQL can run;
// a damaged file is called damaged; failures are one line naming the project, without SQL.
#include <unistd.h>

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <string>

#include "project_queries.h"
#include "project_store.h"
#include "test_support.h"

namespace fs = std::filesystem;
using neardup::ProjectQueries;
using neardup::ProjectStore;
using testsupport::CliOptions;
using testsupport::CliResult;
using testsupport::q;
using testsupport::sqlExec;
using testsupport::sqlRows;

namespace {

// Rows nobody but a planted trigger writes: what proves that none fired.
constexpr const char* kFired = "SELECT count(*) FROM fired";

// Triggers an attacker would plant: one that hides removals from an export
// (removed_for nulled), and ones on every write a command makes (runs, cluster members).
constexpr const char* kTriggers = R"sql(
CREATE TABLE fired(what TEXT);
CREATE TRIGGER t1 AFTER INSERT ON cluster_members
BEGIN
    INSERT INTO fired VALUES('insert cluster_members');
    UPDATE cluster_members SET removed_for = NULL WHERE run_id = NEW.run_id;
END;
CREATE TRIGGER t2 AFTER UPDATE ON runs
BEGIN
    INSERT INTO fired VALUES('update runs');
    UPDATE cluster_members SET removed_for = NULL;
END;
CREATE TRIGGER t3 AFTER INSERT ON runs BEGIN INSERT INTO fired VALUES('insert runs'); END;
CREATE TRIGGER t4 BEFORE DELETE ON pairs BEGIN INSERT INTO fired VALUES('delete pairs'); END;
)sql";

// cluster_members rebuilt with removed_for as TEXT (the rows and the index kept).
constexpr const char* kRetyped = R"sql(
PRAGMA legacy_alter_table = ON;
BEGIN;
CREATE TABLE cm2(
    run_id      INTEGER NOT NULL,
    doc_index   INTEGER NOT NULL,
    cluster     INTEGER NOT NULL,
    removed_for TEXT,
    copy_of     INTEGER,
    PRIMARY KEY(run_id, doc_index),
    FOREIGN KEY(run_id, cluster) REFERENCES clusters(run_id, cluster) ON DELETE CASCADE
) WITHOUT ROWID;
INSERT INTO cm2 SELECT run_id, doc_index, cluster, removed_for, copy_of FROM cluster_members;
DROP TABLE cluster_members;
ALTER TABLE cm2 RENAME TO cluster_members;
CREATE INDEX cluster_members_by_cluster ON cluster_members(run_id, cluster);
COMMIT;
)sql";

}  // namespace

class TestHostileProject : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::string dir_;
    int removed_ = 0;  // documents the clean run removed

    std::string path(const std::string& name) const { return dir_ + "/" + name; }

    CliResult cli(const QStringList& args, const CliOptions& options = {}) {
        CliOptions o = options;
        o.cwd = q(dir_);
        o.timeoutMs = 60000;
        return testsupport::neardup(args, o);
    }

    // A copy of the clean project (its file only: a signature cache it lacks is only a miss).
    std::string copyOfBase(const std::string& name) {
        const std::string p = path(name);
        fs::copy_file(path("base.ndw"), p, fs::copy_options::overwrite_existing);
        return p;
    }

    // Every command that opens the project, each writing to its own output.
    QList<QStringList> commandsOn(const std::string& project, const std::string& tag) {
        const QString p = q(project), out = q(path(tag));
        return {
            {QStringLiteral("run"), q(path("corpus.jsonl")), QStringLiteral("-p"), p,
             QStringLiteral("-q"), QStringLiteral("-j"), QStringLiteral("2"),
             QStringLiteral("--out-kept"), out + QStringLiteral("-run.txt")},
            {QStringLiteral("export"), QStringLiteral("-p"), p, QStringLiteral("--out-removed"),
             out + QStringLiteral("-export.txt")},
            {QStringLiteral("report"), QStringLiteral("-p"), p, QStringLiteral("--out"),
             out + QStringLiteral("-report.html"), QStringLiteral("--clusters-csv"),
             out + QStringLiteral("-report.csv")},
            {QStringLiteral("recluster"), QStringLiteral("-p"), p, QStringLiteral("--run"),
             QStringLiteral("1"), QStringLiteral("-t"), QStringLiteral("0.9"), QStringLiteral("-q"),
             QStringLiteral("--out-kept"), out + QStringLiteral("-recluster.txt")},
            {QStringLiteral("relocate"), QStringLiteral("-p"), p, QStringLiteral("--from"), q(dir_),
             QStringLiteral("--to"), q(dir_)},
        };
    }

    // Every command exits 1 with one line naming the project and `expected`, and writes nothing;
    // the workbench's connections refuse it alike.
    void expectRefused(const std::string& project, const QString& expected,
                       const std::string& tag) {
        for (const QStringList& args : commandsOn(project, tag)) {
            const CliResult r = cli(args);
            const QString what = args.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err;
            QVERIFY2(r.code == 1, qPrintable(what));
            QVERIFY2(r.err.contains(expected) && r.err.contains(q(project)), qPrintable(what));
            QVERIFY2(r.err.trimmed().count(QLatin1Char('\n')) == 0, qPrintable(what));
            QVERIFY2(!r.err.contains(QStringLiteral("SQL")), qPrintable(what));
        }
        for (const char* suffix :
             {"-run.txt", "-export.txt", "-report.html", "-report.csv", "-recluster.txt"})
            QVERIFY2(!fs::exists(path(tag + suffix)), suffix);
        workbenchRefuses(project, expected);
    }

    // The workbench opens a project through a writable ProjectStore (listing runs, recovering
    // stale ones), a read-only one (loading runs) and ProjectQueries (its views).
    void workbenchRefuses(const std::string& project, const QString& expected) {
        auto check = [&](const char* which, auto open) {
            try {
                open();
                QFAIL(qPrintable(
                    QStringLiteral("%1 opened %2").arg(QLatin1String(which), q(project))));
            } catch (const std::exception& e) {
                const QString msg = QString::fromUtf8(e.what());
                QVERIFY2(msg.contains(expected) && msg.contains(q(project)), qPrintable(msg));
            }
        };
        check("ProjectStore", [&] { ProjectStore store(project); });
        check("read-only ProjectStore",
              [&] { ProjectStore store(project, ProjectStore::Mode::ReadOnly); });
        check("ProjectQueries", [&] { ProjectQueries queries(project); });
    }

  private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        dir_ = fs::canonical(tmp_.path().toStdString()).string();
        CliResult r =
            cli({QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("300"),
                 QStringLiteral("--seed"), QStringLiteral("7"), QStringLiteral("--out"),
                 q(path("corpus.jsonl")), QStringLiteral("--truth"), q(path("truth.json"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = cli({QStringLiteral("run"), q(path("corpus.jsonl")), QStringLiteral("-p"),
                 q(path("base.ndw")), QStringLiteral("-q"), QStringLiteral("-j"),
                 QStringLiteral("2")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QStringList removed = sqlRows(
            path("base.ndw"), "SELECT count(*) FROM cluster_members WHERE removed_for IS NOT NULL");
        QCOMPARE(removed.size(), 1);
        removed_ = removed[0].toInt();
        QVERIFY(removed_ > 0);
    }

    // A clean copy opens everywhere: what the refusals below stand against.
    void aCleanProjectOpens() {
        const std::string p = copyOfBase("clean.ndw");
        for (const QStringList& args : commandsOn(p, "clean")) {
            const CliResult r = cli(args);
            QVERIFY2(r.code == 0,
                     qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err));
        }
        ProjectStore store(p);
        ProjectQueries queries(p);
    }

    void triggersAreRefusedAndNeverFire() {
        const std::string p = copyOfBase("triggers.ndw");
        QVERIFY(sqlExec(p, kTriggers));
        expectRefused(p, QStringLiteral("holds a trigger 't1' that NearDup never writes"),
                      "triggers");
        QCOMPARE(sqlRows(p, kFired), QStringList{QStringLiteral("0")});
        QCOMPARE(sqlRows(p, "SELECT count(*) FROM cluster_members WHERE removed_for IS NOT NULL"),
                 QStringList{QString::number(removed_)});
        QCOMPARE(sqlRows(p, "SELECT count(*) FROM runs"), QStringList{QStringLiteral("1")});
    }

    // One trigger alone, under a name that sorts after every table: refused all the same.
    void aLoneTriggerIsRefused() {
        const std::string p = copyOfBase("lone.ndw");
        QVERIFY(sqlExec(p,
                        "CREATE TRIGGER zz AFTER UPDATE ON runs "
                        "BEGIN UPDATE cluster_members SET removed_for = NULL; END"));
        expectRefused(p, QStringLiteral("holds a trigger 'zz' that NearDup never writes"), "lone");
        QCOMPARE(sqlRows(p, "SELECT count(*) FROM cluster_members WHERE removed_for IS NOT NULL"),
                 QStringList{QString::number(removed_)});
    }

    void aViewIsRefused() {
        const std::string p = copyOfBase("view.ndw");
        QVERIFY(sqlExec(p, "CREATE VIEW v1 AS SELECT id FROM runs"));
        expectRefused(p, QStringLiteral("holds a view 'v1' that NearDup never writes"), "view");
    }

    // NearDup's own view, redefined.
    void aChangedViewIsRefused() {
        const std::string p = copyOfBase("ownview.ndw");
        QVERIFY(sqlExec(p,
                        "DROP VIEW document_status; CREATE VIEW document_status AS "
                        "SELECT id AS run_id FROM runs"));
        expectRefused(p, QStringLiteral("view 'document_status' differs"), "ownview");
    }

    void anExtraTableIsRefused() {
        const std::string p = copyOfBase("table.ndw");
        QVERIFY(sqlExec(p, "CREATE TABLE notes(x TEXT)"));
        expectRefused(p, QStringLiteral("holds a table 'notes' that NearDup never writes"),
                      "table");
    }

    void anExtraIndexIsRefused() {
        const std::string p = copyOfBase("index.ndw");
        QVERIFY(sqlExec(p, "CREATE INDEX by_removed ON cluster_members(removed_for)"));
        expectRefused(p, QStringLiteral("holds an index 'by_removed' that NearDup never writes"),
                      "index");
    }

    void aChangedColumnTypeIsRefused() {
        const std::string p = copyOfBase("retyped.ndw");
        QVERIFY(sqlExec(p, kRetyped));
        QCOMPARE(sqlRows(p,
                         "SELECT type FROM pragma_table_info('cluster_members') "
                         "WHERE name = 'removed_for'"),
                 QStringList{QStringLiteral("TEXT")});
        expectRefused(p, QStringLiteral("column 'removed_for' of table 'cluster_members' is TEXT"),
                      "retyped");
    }

    void aDroppedColumnIsRefused() {
        const std::string p = copyOfBase("dropped.ndw");
        QVERIFY(sqlExec(p, "ALTER TABLE cluster_members DROP COLUMN copy_of"));
        expectRefused(p, QStringLiteral("table 'cluster_members' lacks the column 'copy_of'"),
                      "dropped");
    }

    // An older project holding a trigger is refused before its upgrade, which would run it.
    void anOldProjectWithATriggerIsRefusedBeforeItsUpgrade() {
        const std::string p = copyOfBase("old.ndw");
        QVERIFY(sqlExec(p,
                        "CREATE TABLE fired(what TEXT);"
                        "CREATE TRIGGER t1 AFTER UPDATE ON runs "
                        "BEGIN INSERT INTO fired VALUES('upgrade'); END;"
                        "PRAGMA user_version = 4"));
        expectRefused(p, QStringLiteral("holds a trigger 't1' that NearDup never writes"), "old");
        QCOMPARE(sqlRows(p, kFired), QStringList{QStringLiteral("0")});
        QCOMPARE(sqlRows(p, "PRAGMA user_version"), QStringList{QStringLiteral("4")});
    }

    // A failed upgrade says so in one line, without the CREATE TABLE that failed, and leaves the
    // project as it was.
    void aFailedUpgradeIsOneLine() {
        const std::string p = copyOfBase("upgrade.ndw");
        // Version 4's schema with version 5's tables already there: the upgrade's CREATE fails.
        QVERIFY(sqlExec(p, "PRAGMA user_version = 4"));
        const CliResult r = cli({QStringLiteral("export"), QStringLiteral("-p"), q(p),
                                 QStringLiteral("--out-kept"), q(path("upgrade-kept.txt"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("cannot be upgraded from schema version 4 to ")) &&
                     r.err.contains(q(p)),
                 qPrintable(r.err));
        QVERIFY2(r.err.trimmed().count(QLatin1Char('\n')) == 0, qPrintable(r.err));
        QVERIFY2(
            !r.err.contains(QStringLiteral("CREATE")) && !r.err.contains(QStringLiteral("SQL")),
            qPrintable(r.err));
        QCOMPARE(sqlRows(p, "PRAGMA user_version"), QStringList{QStringLiteral("4")});
    }

    // A cut-off project is damaged, not "not a project"; a file of another kind is not a project.
    void aTruncatedProjectIsDamaged() {
        const std::string p = copyOfBase("cut.ndw");
        fs::resize_file(p, fs::file_size(p) / 2);
        expectRefused(p, QStringLiteral("is a damaged NearDup project: "), "cut");

        const std::string text = path("text.ndw");
        testsupport::writeFile(text, std::string(4096, 'x'));
        const CliResult r = cli({QStringLiteral("export"), QStringLiteral("-p"), q(text),
                                 QStringLiteral("--out-kept"), q(path("text-kept.txt"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("is not a NearDup project")) &&
                     !r.err.contains(QStringLiteral("damaged")) && r.err.contains(q(text)),
                 qPrintable(r.err));
    }

    // A link planted where SQLite keeps a companion of the project (its -journal, -wal or -shm)
    // would have SQLite write through it: every command refuses the project naming the link,
    // not calling the project damaged, and what the link points to is left as it was.
    void aLinkedCompanionIsNamed() {
        for (const char* suffix : {"-journal", "-wal", "-shm"}) {
            const std::string tag = std::string("linked") + suffix;
            const std::string p = copyOfBase(tag + ".ndw");
            const std::string victim = path(tag + "-victim");
            testsupport::writeFile(victim, "victim\n");
            const std::string link = p + suffix;
            QVERIFY(::symlink(victim.c_str(), link.c_str()) == 0);
            const QString says = QStringLiteral("'") + q(link) +
                                 QStringLiteral("' is a symbolic link; NearDup never follows one");
            expectRefused(p, says, tag);
            QCOMPARE(testsupport::readFile(victim), std::string("victim\n"));
            // A link to nothing alike, and nothing is created where it points.
            fs::remove(victim);
            expectRefused(p, says, tag + "-dangling");
            QVERIFY(!fs::exists(victim));
        }
    }

    // A full disk while writing the project: one line with the project and the reason.
    void aFullDiskNamesTheProject() {
        const std::string p = copyOfBase("full.ndw");
        fs::copy_file(path("corpus.jsonl"), path("other.jsonl"),
                      fs::copy_options::overwrite_existing);
        const testsupport::FailingSql failing("INSERT INTO documents");
        const CliResult r = cli({QStringLiteral("run"), q(path("other.jsonl")),
                                 QStringLiteral("-p"), q(p), QStringLiteral("-q")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("cannot write project '") + q(p) +
                                QStringLiteral("': no space left on device")),
                 qPrintable(r.err));
        QVERIFY2(r.err.trimmed().count(QLatin1Char('\n')) == 0, qPrintable(r.err));
        QVERIFY2(
            !r.err.contains(QStringLiteral("SQL")) && !r.err.contains(QStringLiteral("INSERT")),
            qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestHostileProject)
#include "test_hostile_project.moc"
