// Memory budget: parsing sizes, the default budget, and the accounting the pipeline decides by.
#include <QTest>

#include <unistd.h>

#include "memory_budget.h"

using namespace neardup;

class TestMemoryBudget : public QObject {
    Q_OBJECT
  private slots:
    void parsesSizes_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qulonglong>("bytes");
        QTest::newRow("plain") << QStringLiteral("1048576") << qulonglong{1048576};
        QTest::newRow("zero") << QStringLiteral("0") << qulonglong{0};
        QTest::newRow("K") << QStringLiteral("512K") << qulonglong{512} * 1024;
        QTest::newRow("k lower") << QStringLiteral("512k") << qulonglong{512} * 1024;
        QTest::newRow("M") << QStringLiteral("256M") << (qulonglong{256} << 20);
        QTest::newRow("MiB") << QStringLiteral("256MiB") << (qulonglong{256} << 20);
        QTest::newRow("MB") << QStringLiteral("256MB") << (qulonglong{256} << 20);
        QTest::newRow("G") << QStringLiteral("4G") << (qulonglong{4} << 30);
        QTest::newRow("fraction") << QStringLiteral("1.5G") << (qulonglong{3} << 29);
        QTest::newRow("T") << QStringLiteral("2T") << (qulonglong{2} << 40);
        QTest::newRow("bytes suffix") << QStringLiteral("100B") << qulonglong{100};
        QTest::newRow("spaces") << QStringLiteral(" 8 M ") << (qulonglong{8} << 20);
    }
    void parsesSizes() {
        QFETCH(QString, text);
        QFETCH(qulonglong, bytes);
        const auto parsed = parseByteSize(text.toStdString());
        QVERIFY(parsed.has_value());
        QCOMPARE(qulonglong{*parsed}, bytes);
    }

    void rejectsMalformedSizes() {
        for (const char* bad : {"", "M", "abc", "-5M", "5X", "1.2.3G", "5MiBB", "5iB", "G5",
                                "99999999999999999999999T"})
            QVERIFY2(!parseByteSize(bad).has_value(), bad);
    }

    void formatsSizes() {
        QCOMPARE(formatBytes(812), std::string("812 B"));
        QCOMPARE(formatBytes(uint64_t{256} << 20), std::string("256 MiB"));
        QCOMPARE(formatBytes(uint64_t{3} << 29), std::string("1.50 GiB"));
    }

    void defaultBudgetIsHalfOfWhatIsAvailable() {
        const uint64_t physical = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                                  static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
        const uint64_t budget = defaultMemoryBudget();
        QVERIFY(budget >= kMinimumBudget);
        QVERIFY(budget <= std::max(physical / 2, kMinimumBudget));
        QCOMPARE(resolveMemoryBudget(12345), uint64_t{12345});
        QVERIFY(resolveMemoryBudget(0) >= kMinimumBudget);
    }

    void measuresResidentMemory() {
        const uint64_t before = peakRssBytes();
        QVERIFY(before > 0);
        QVERIFY(currentRssBytes() > 0);
        // Read the current size first: RSS may grow between two reads (ASan's allocator does).
        const uint64_t current = currentRssBytes();
        QVERIFY(current <= peakRssBytes());
        // Touching 64 MiB raises the peak by about as much.
        std::vector<char> block(std::size_t{64} << 20);
        for (std::size_t i = 0; i < block.size(); i += 4096)
            block[i] = static_cast<char>(i);
        QVERIFY(peakRssBytes() >= before + (uint64_t{48} << 20) ||
                peakRssBytes() >= currentRssBytes());
        QVERIFY(currentRssBytes() >= (uint64_t{64} << 20));
    }

    void accountsTheDocumentTable() {
        DocumentTable docs;
        QVERIFY(documentTableBytes(docs) < 64);  // at most the id string's inline buffer
        for (int i = 0; i < 1000; ++i)
            docs.append(0, uint64_t(i + 1), uint64_t(i) * 100, 99, 90, 0.0, "doc-000000");
        // 44 bytes of arrays and 10 bytes of id a document, at least.
        QVERIFY(documentTableBytes(docs) >= 1000 * (44 + 10));
        QVERIFY(documentTableBytes(docs) < 1000 * (44 + 10) * 3);
    }
};

QTEST_GUILESS_MAIN(TestMemoryBudget)
#include "test_memory_budget.moc"
