// The portable bundle (scripts/bundle-binary.sh, used by scripts/gpu-bundle.sh to carry the
// CLI to a GPU machine without our packages): the built `neardup` copied with its shared
// libraries must start in an empty environment from any directory, resolve every library from
// the bundle itself, report its compiled-in backends, and pass `selftest --backend cpu`.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "backend_factory.h"
#include "test_support.h"

using testsupport::q;

class TestBundle : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString bundle_;

    // Runs `program args` with nothing in the environment but a minimal PATH.
    static QProcess* runBare(QObject* parent, const QString& program, const QStringList& args,
                             const QString& cwd) {
        auto* p = new QProcess(parent);
        QProcessEnvironment env;
        env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
        // Sanitized builds keep their runtime's settings (suppressions, exit codes).
        const QProcessEnvironment here = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"})
            if (here.contains(QLatin1String(name)))
                env.insert(QLatin1String(name), here.value(QLatin1String(name)));
        p->setProcessEnvironment(env);
        p->setWorkingDirectory(cwd);
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->start(program, args);
        return p;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        bundle_ = dir_.path() + QStringLiteral("/bundle");
        QProcess make;
        make.setProcessChannelMode(QProcess::MergedChannels);
#ifdef NEARDUP_CUDA_COMPILER
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CUDACXX"), QStringLiteral(NEARDUP_CUDA_COMPILER));
        make.setProcessEnvironment(env);
#endif
        make.start(QStringLiteral(NEARDUP_SOURCE_DIR "/scripts/bundle-binary.sh"),
                   {QStringLiteral(NEARDUP_CLI_PATH), bundle_});
        QVERIFY(make.waitForFinished(120000));
        const QByteArray log = make.readAll();
        QVERIFY2(make.exitCode() == 0, log.constData());
    }

    void everyLibraryComesFromTheBundle() {
        QProcess ldd;
        ldd.start(QStringLiteral("ldd"), {bundle_ + QStringLiteral("/neardup")});
        QVERIFY(ldd.waitForFinished(30000));
        const QString out = QString::fromUtf8(ldd.readAllStandardOutput());
        QVERIFY2(!out.contains(QStringLiteral("not found")), qPrintable(out));
        int fromBundle = 0;
        for (const QString& line : out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            if (!line.contains(QStringLiteral("=> /"))) continue;
            const bool glibc = line.contains(QStringLiteral("libc.so")) ||
                               line.contains(QStringLiteral("libm.so")) ||
                               line.contains(QStringLiteral("ld-linux")) ||
                               line.contains(QStringLiteral("libpthread")) ||
                               line.contains(QStringLiteral("libdl.so")) ||
                               line.contains(QStringLiteral("librt.so"));
            if (glibc) continue;
            QVERIFY2(line.contains(bundle_), qPrintable(line));
            ++fromBundle;
        }
        QVERIFY2(fromBundle >= 3, qPrintable(out));  // libstdc++, simdjson, sqlite at least
        QVERIFY2(!out.contains(QStringLiteral("libcuda.so")), qPrintable(out));
    }

    void startsBareAndReportsItsBackends() {
        QProcess* p = runBare(this, bundle_ + QStringLiteral("/neardup"), {QStringLiteral("info")},
                              QStringLiteral("/"));
        QVERIFY(p->waitForFinished(60000));
        const QString out = QString::fromUtf8(p->readAll());
        QVERIFY2(p->exitCode() == 0, qPrintable(out));
        const QString cuda = NEARDUP_HAVE_CUDA ? QStringLiteral("cuda backend: compiled in")
                                               : QStringLiteral("cuda backend: not compiled in");
        QVERIFY2(out.contains(cuda), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("hardware threads:")), qPrintable(out));
    }

    void selftestPassesFromTheBundle() {
        QProcess* p =
            runBare(this, bundle_ + QStringLiteral("/neardup"),
                    {QStringLiteral("selftest"), QStringLiteral("--backend"), QStringLiteral("cpu"),
                     QStringLiteral("--docs"), QStringLiteral("300")},
                    dir_.path());
        QVERIFY(p->waitForFinished(300000));
        const QString out = QString::fromUtf8(p->readAll());
        QVERIFY2(p->exitCode() == 0, qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("result: identical")), qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("DIFFERENT")), qPrintable(out));
    }
};

QTEST_GUILESS_MAIN(TestBundle)
#include "test_bundle.moc"
