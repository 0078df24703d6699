// `neardup run` as an MPI job across two "nodes" that share no memory and no loopback: ranks in
// two network namespaces joined by a veth pair (tests/support/netns_nodes.sh), the remote ones
// started by mpirun through a remote-shell agent that enters the other namespace with its own
// host name (tests/support/netns_agent.sh), and Open MPI restricted to TCP. The outputs and the
// project's results are byte-identical to one process. Needs MPI compiled in, mpirun, root
// (CAP_NET_ADMIN), `ip` and `unshare`; skipped otherwise, saying which is missing.
#include <unistd.h>

#include <QDir>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "mpi_fixture.h"
#include "test_support.h"

namespace {

using mpitest::execute;
using mpitest::kOutputs;
using mpitest::Result;
using mpitest::sqlRows;

QString support(const char* script) {
    return QStringLiteral(NEARDUP_SOURCE_DIR "/tests/support/") + QLatin1String(script);
}

}  // namespace

class TestMpiNetwork : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString mpirun_;
    // Unique per process, so that two test runs on one machine do not share namespaces.
    const QString nodes_ = QStringLiteral("nd%1").arg(::getpid() % 100000);
    const QString subnet_ = QStringLiteral("10.201.%1.").arg(::getpid() % 250 + 1);
    bool nodesUp_ = false;

    QString d(const QString& name) const { return dir_.filePath(name); }

    QStringList runArgs(const QString& name) const { return mpitest::runArgs(dir_, name); }

    // What must not depend on where the ranks ran.
    static QString projectResults(const QString& db) {
        return mpitest::runResults(db) +
               sqlRows(db,
                       "SELECT doc_index, file_index, line, offset, length, doc_id FROM "
                       "documents ORDER BY doc_index");
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        if (!NEARDUP_HAVE_MPI) QSKIP("MPI not compiled in");
        mpirun_ = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
        if (mpirun_.isEmpty()) QSKIP("mpirun not found");
        if (::geteuid() != 0) QSKIP("network namespaces need root");
        for (const char* tool : {"ip", "unshare"})
            if (QStandardPaths::findExecutable(QLatin1String(tool)).isEmpty())
                QSKIP(qPrintable(QStringLiteral("%1 not found").arg(QLatin1String(tool))));
        const Result uts =
            execute(QStringLiteral("unshare"), {QStringLiteral("--uts"), QStringLiteral("true")});
        if (uts.code != 0)
            QSKIP(qPrintable(QStringLiteral("cannot give a process its own host name here: ") +
                             uts.err));
        const Result up =
            execute(support("netns_nodes.sh"), {QStringLiteral("up"), nodes_, subnet_});
        if (up.code != 0)
            QSKIP(qPrintable(QStringLiteral("cannot create network namespaces here: ") + up.err));
        nodesUp_ = true;

        const Result gen =
            execute(testsupport::cliPath(),
                    {QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("3000"),
                     QStringLiteral("--seed"), QStringLiteral("11"), QStringLiteral("--out"),
                     d(QStringLiteral("corpus.jsonl")), QStringLiteral("--truth"),
                     d(QStringLiteral("truth.json"))});
        QCOMPARE(gen.code, 0);
        const Result single = execute(testsupport::cliPath(), runArgs(QStringLiteral("single")));
        QVERIFY2(single.code == 0, qPrintable(single.err));
    }
    void cleanupTestCase() {
        if (nodesUp_)
            QCOMPARE(execute(support("netns_nodes.sh"), {QStringLiteral("down"), nodes_}).code, 0);
    }

    // Rank 0 on node a, ranks 1 and 2 on node b: every message between the nodes crosses the
    // veth pair over TCP (shared memory is off; the namespaces have no route to each other but
    // the pair).
    void ranksOnTwoNetworkStacksGiveIdenticalResults() {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("NEARDUP_TEST_REMOTE_NETNS"), nodes_ + QStringLiteral("-b"));
        env.insert(QStringLiteral("NEARDUP_TEST_REMOTE_HOSTNAME"), QStringLiteral("node-b"));
        // Under AddressSanitizer, Open MPI's leaks at MPI_Finalize are not ours (as in test_mpi).
        if (env.contains(QStringLiteral("ASAN_OPTIONS")))
            env.insert(QStringLiteral("ASAN_OPTIONS"), env.value(QStringLiteral("ASAN_OPTIONS")) +
                                                           QStringLiteral(":detect_leaks=0"));
        const QString net = subnet_ + QStringLiteral("0/24");
        const QStringList launch{QStringLiteral("netns"),
                                 QStringLiteral("exec"),
                                 nodes_ + QStringLiteral("-a"),
                                 mpirun_,
                                 QStringLiteral("--allow-run-as-root"),
                                 QStringLiteral("-np"),
                                 QStringLiteral("3"),
                                 QStringLiteral("--host"),
                                 subnet_ + QStringLiteral("1:1,") + subnet_ + QStringLiteral("2:2"),
                                 QStringLiteral("--mca"),
                                 QStringLiteral("plm_rsh_agent"),
                                 support("netns_agent.sh"),
                                 QStringLiteral("--mca"),
                                 QStringLiteral("btl"),
                                 QStringLiteral("tcp,self"),
                                 QStringLiteral("--mca"),
                                 QStringLiteral("btl_tcp_if_include"),
                                 net,
                                 QStringLiteral("--mca"),
                                 QStringLiteral("oob_tcp_if_include"),
                                 net,
                                 testsupport::cliPath()};
        const Result r =
            execute(QStringLiteral("ip"), launch + runArgs(QStringLiteral("net")), env);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        // Two hosts: the remote ranks report the other node's name.
        QVERIFY2(r.err.contains(QStringLiteral("mpi (3 ranks on 2 hosts)")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("rank 1 on node-b")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("rank 2 on node-b")), qPrintable(r.err));
        for (const mpitest::ListOutput& output : kOutputs) {
            const char* out = output.file;
            const QByteArray mine =
                testsupport::readFile(d(QStringLiteral("net/") + QLatin1String(out)));
            QVERIFY2(!mine.isEmpty(), out);
            QVERIFY2(
                mine == testsupport::readFile(d(QStringLiteral("single/") + QLatin1String(out))),
                out);
        }
        const QString single = projectResults(d(QStringLiteral("single.ndw")));
        QVERIFY(single.count(QLatin1Char('\n')) > 3000);
        QCOMPARE(projectResults(d(QStringLiteral("net.ndw"))), single);
        // The remote ranks did read and sign chunks.
        QVERIFY(sqlRows(d(QStringLiteral("net.ndw")),
                        "SELECT count(*) FROM worker_phases WHERE phase = 'signatures' AND "
                        "worker > 0 AND items > 0")
                    .trimmed()
                    .toInt() >= 1);
    }
};

QTEST_GUILESS_MAIN(TestMpiNetwork)
#include "test_mpi_network.moc"
