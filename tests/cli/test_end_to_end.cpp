// Accuracy end to end: a generated corpus with exact ground truth, deduplicated by the CLI with
// default parameters and scored by `neardup eval`, must stay within the published bounds.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "test_support.h"

namespace {

// The exit code of a long CLI run; its messages go to the test's stderr.
int neardup(const QStringList& args) {
    return testsupport::neardup(args,
                                testsupport::CliOptions().withTimeout(600000).forwardingStderr())
        .code;
}

QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace

class TestEndToEnd : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString d(const QString& name) const { return dir_.filePath(name); }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QCOMPARE(neardup({QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("6000"),
                          QStringLiteral("--seed"), QStringLiteral("99"), QStringLiteral("--out"),
                          d(QStringLiteral("corpus.jsonl")), QStringLiteral("--truth"),
                          d(QStringLiteral("truth.json"))}),
                 0);
    }
    // The sketch when none is named: oph with the permutation family, classic with the
    // rolling one (which oph cannot use); and classic when named.
    void accuracyWithinBounds_data() {
        QTest::addColumn<QString>("family");
        QTest::addColumn<QString>("sketch");  // given with --sketch, or empty
        QTest::addColumn<QString>("expected");
        QTest::newRow("permute") << QStringLiteral("permute") << QString() << QStringLiteral("oph");
        QTest::newRow("permute classic")
            << QStringLiteral("permute") << QStringLiteral("classic") << QStringLiteral("classic");
        QTest::newRow("rolling") << QStringLiteral("rolling") << QString()
                                 << QStringLiteral("classic");
    }
    // Bounds sit a little under the figures measured on the 18,000-document corpora of
    // docs/accuracy.md, since a 6,000-document corpus has fewer pairs to average over.
    void accuracyWithinBounds() {
        QFETCH(QString, family);
        QFETCH(QString, sketch);
        QFETCH(QString, expected);
        const QString tag = family + sketch;
        const QString clusters = d(tag + QStringLiteral(".clusters"));
        const QString scores = d(tag + QStringLiteral(".eval.json"));
        const QString summary = d(tag + QStringLiteral(".summary.json"));
        QStringList args{QStringLiteral("run"),
                         d(QStringLiteral("corpus.jsonl")),
                         QStringLiteral("-p"),
                         d(tag + QStringLiteral(".ndw")),
                         QStringLiteral("-q"),
                         QStringLiteral("--hash"),
                         family,
                         QStringLiteral("--out-clusters"),
                         clusters,
                         QStringLiteral("--summary-json"),
                         summary};
        if (!sketch.isEmpty()) args << QStringLiteral("--sketch") << sketch;
        QCOMPARE(neardup(args), 0);
        QCOMPARE(readJson(summary)
                     .value(QStringLiteral("parameters"))
                     .toObject()
                     .value(QStringLiteral("sketch"))
                     .toString(),
                 expected);
        QCOMPARE(neardup({QStringLiteral("eval"), QStringLiteral("--truth"),
                          d(QStringLiteral("truth.json")), QStringLiteral("--clusters"), clusters,
                          QStringLiteral("--json"), scores}),
                 0);
        const QJsonObject e = readJson(scores);
        const double jaccard = e.value(QStringLiteral("document_jaccard")).toDouble();
        const double precision = e.value(QStringLiteral("document_precision")).toDouble();
        const double recall = e.value(QStringLiteral("document_recall")).toDouble();
        qInfo("%s: document-set Jaccard %.4f, precision %.4f, recall %.4f", qPrintable(tag),
              jaccard, precision, recall);
        QVERIFY(e.value(QStringLiteral("truth_documents")).toInt() > 1000);
        QVERIFY2(jaccard >= 0.95, qPrintable(QString::number(jaccard)));
        QVERIFY2(precision >= 0.96, qPrintable(QString::number(precision)));
        QVERIFY2(recall >= 0.97, qPrintable(QString::number(recall)));
    }
    void exactVerificationRaisesPrecision() {
        const QString clusters = d(QStringLiteral("verified.clusters"));
        const QString scores = d(QStringLiteral("verified.eval.json"));
        QCOMPARE(
            neardup({QStringLiteral("run"), d(QStringLiteral("corpus.jsonl")), QStringLiteral("-p"),
                     d(QStringLiteral("v.ndw")), QStringLiteral("-q"), QStringLiteral("--verify"),
                     QStringLiteral("exact"), QStringLiteral("--out-clusters"), clusters}),
            0);
        QCOMPARE(neardup({QStringLiteral("eval"), QStringLiteral("--truth"),
                          d(QStringLiteral("truth.json")), QStringLiteral("--clusters"), clusters,
                          QStringLiteral("--json"), scores}),
                 0);
        const QJsonObject e = readJson(scores);
        // Verified pairs are exact, so a predicted document is a true one unless it was joined
        // only through a chain; precision is (nearly) perfect.
        QVERIFY2(
            e.value(QStringLiteral("document_precision")).toDouble() >= 0.995,
            qPrintable(QString::number(e.value(QStringLiteral("document_precision")).toDouble())));
    }
};

QTEST_GUILESS_MAIN(TestEndToEnd)
#include "test_end_to_end.moc"
