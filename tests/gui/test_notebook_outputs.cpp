// Notebook outputs rendered natively (offscreen) from real outputs: IPython's coloured
// traceback, a pandas DataFrame's HTML table and a matplotlib figure as PNG and SVG, all made by
// Debian's python3 at test time (notebook_outputs.py); ANSI-coloured stream text with progress
// bars; markdown and JSON; a job card and tuning cards over a real store that follow it as it
// changes; update_display_data in place, clear; 20,000 streamed lines. Screenshots, light and
// dark, in STUDIO_SCREENSHOT_DIR/notebook-outputs-*.png.
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "models/data/data_service.h"
#include "models/notebook/notebook_document.h"
#include "tests/gui/tuning_fixture.h"
#include "tests/support/screenshot.h"
#include "widgets/common/theme.h"
#include "widgets/notebook/image_output_view.h"
#include "widgets/notebook/job_output_widget.h"
#include "widgets/notebook/output_area.h"
#include "widgets/notebook/rich_output_view.h"
#include "widgets/notebook/text_output_view.h"
#include "widgets/notebook/tuning_output_bars.h"
#include "widgets/notebook/tuning_output_widget.h"

#include <QApplication>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextTable>
#include <QVBoxLayout>
#include <QtTest>

#include <memory>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

QJsonObject display(const QJsonObject& data, const QJsonObject& metadata = {}) {
    return {{QStringLiteral("output_type"), QStringLiteral("display_data")},
            {QStringLiteral("data"), data},
            {QStringLiteral("metadata"), metadata}};
}

QJsonObject stream(const char* name, const QString& text) {
    return {{QStringLiteral("output_type"), QStringLiteral("stream")},
            {QStringLiteral("name"), QString::fromLatin1(name)},
            {QStringLiteral("text"), text}};
}

QString esc(const char* text) {
    return QString::fromUtf8(text).replace(QLatin1Char('~'), QChar(0x1b));
}

QJsonObject jobCard(const QString& job, const QString& status) {
    return display({{QLatin1String(kJobMimeType), QJsonObject{{QStringLiteral("job"), job},
                                                              {QStringLiteral("status"), status},
                                                              {QStringLiteral("total"), 100}}},
                    {QStringLiteral("text/plain"), job}});
}

QJsonObject tuningCard(const QString& tuning, const QJsonObject& payload = {}) {
    QJsonObject p = payload;
    p.insert(QStringLiteral("tuning"), tuning);
    return display({{QLatin1String(kTuningMimeType), p}, {QStringLiteral("text/plain"), tuning}});
}

// The foreground colour the view paints the first character of `word` in (read from the editor
// the painted text becomes; both take their formats from ansiCharFormat).
QColor colourOf(TextOutputView* view, const QString& word) {
    QTextDocument* doc = view->view()->document();
    const QTextCursor found = doc->find(word);
    if (found.isNull())
        return {};
    QTextCursor at(doc);
    at.setPosition(found.selectionStart() + 1);
    return at.charFormat().foreground().color();
}

// How many distinct colours an image has (a blank one has one).
int colourCount(const QImage& image) {
    QSet<QRgb> seen;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            seen.insert(image.pixel(x, y));
    return static_cast<int>(seen.size());
}

} // namespace

class TestNotebookOutputs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QString m_db;
    QJsonObject m_real; // notebook_outputs.py's outputs
    std::unique_ptr<store::StoreWriter> m_writer;
    store::ComponentId m_job = 0;
    std::unique_ptr<DataService> m_service;

    QJsonObject realOutputs() const {
        return display({{QStringLiteral("image/png"), m_real.value(QStringLiteral("png"))},
                        {QStringLiteral("text/plain"), QStringLiteral("<Figure size 640x320>")}});
    }

    // One output area holding one of every kind, in a scrolled column as the notebook shows it.
    void fill(OutputArea& area) {
        area.append(stream("stdout", esc("epoch 1 ~[32mok~[0m loss ~[1;31m2.31~[0m\n")));
        area.append(stream("stdout", QStringLiteral("[#####     ] 50%\r[##########] 100%\n")));
        area.append(stream("stderr", QStringLiteral("UserWarning: the learning rate is high\n")));
        area.append(m_real.value(QStringLiteral("error")).toObject());
        area.append(
            display({{QStringLiteral("text/html"), m_real.value(QStringLiteral("html"))},
                     {QStringLiteral("text/plain"), m_real.value(QStringLiteral("text"))}}));
        area.append(realOutputs());
        area.append(display(
            {{QStringLiteral("image/svg+xml"), m_real.value(QStringLiteral("svg"))}},
            {{QStringLiteral("image/svg+xml"), QJsonObject{{QStringLiteral("width"), 360}}}}));
        area.append(display({{QStringLiteral("text/markdown"),
                              QStringLiteral("## Results\n\nThe *loss* goes **down**:\n\n"
                                             "| lr | accuracy |\n|---|---|\n| 0.1 | 0.84 |\n")}}));
        area.append(display({{QStringLiteral("application/json"),
                              QJsonObject{{QStringLiteral("lr"), 0.01},
                                          {QStringLiteral("layers"), QJsonArray{64, 32}}}}}));
        area.append(jobCard(QStringLiteral("fmnist-live"), QStringLiteral("InProgress")));
        area.append(tuningCard(QStringLiteral("tune-live")));
    }

private Q_SLOTS:
    void initTestCase() {
        QProcess python;
        python.start(QStringLiteral(STUDIO_SYSTEM_PYTHON),
                     {QStringLiteral(STUDIO_TEST_SOURCE "/notebook_outputs.py")});
        QVERIFY2(python.waitForFinished(120000), "notebook_outputs.py did not finish");
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        m_real = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
        QVERIFY(m_real.contains(QStringLiteral("png")));

        m_db = m_home.filePath(QStringLiteral("studio.db"));
        m_writer = std::make_unique<store::StoreWriter>(m_db.toStdString());
        store::NewComponent c;
        c.name = "fmnist-live";
        c.experiment = "notebook";
        c.created = 1795300000;
        c.parameters = {{"max-steps", "100", 100.0}};
        m_job = m_writer->createComponent(c);
        m_writer->setStatus(m_job, "InProgress", "Training", "", c.created + 1);
        for (int step = 0; step <= 40; step += 10)
            m_writer->addMetric(m_job, "train:loss", {step, c.created + step, 2.3 - 0.04 * step});
        tuning_fixture::writeTuningJob(*m_writer, "tune-live", 6, 10, 2, 1795400000);
        tuning_fixture::writeTuningJob(*m_writer, "tune-done", 12);
        m_writer->flush();
        m_service = std::make_unique<DataService>(m_db);
        m_service->setRefreshInterval(100);
    }

    void streamsJoinAndColour() {
        OutputArea area(m_service.get());
        area.resize(800, 600);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        area.append(stream("stdout", esc("epoch 1 ~[32mok~[0m\n")));
        area.append(stream("stdout", QStringLiteral("progress 10%\r")));
        area.append(stream("stdout", QStringLiteral("progress 60%\r")));
        area.append(stream("stdout", QStringLiteral("progress 100%\ndone\n")));
        area.append(stream("stderr", QStringLiteral("warn\n")));
        area.append(stream("stdout", QStringLiteral("after\b\b\b\bAFTER\n")));
        QCOMPARE(area.count(), 3);
        auto* out = qobject_cast<TextOutputView*>(area.viewAt(0));
        QVERIFY(out);
        QVERIFY(!out->hasEditor()); // short: painted
        QCOMPARE(out->shownText(), QStringLiteral("epoch 1 ok\nprogress 100%\ndone\n"));
        QCOMPARE(out->lineCount(), 3);
        QCOMPARE(colourOf(out, QStringLiteral("ok")), QColor(0x00a250)); // JupyterLab's green
        QCOMPARE(area.output(0).value(QStringLiteral("text")).toString(),
                 esc("epoch 1 ~[32mok~[0m\nprogress 100%\ndone\n"));
        auto* err = qobject_cast<TextOutputView*>(area.viewAt(1));
        QCOMPARE(err->objectName(), QStringLiteral("stderrOutput"));
        QCOMPARE(err->tone(), TextOutputView::Tone::Error);
        QCOMPARE(qobject_cast<TextOutputView*>(area.viewAt(2))->shownText(),
                 QStringLiteral("aAFTER\n"));
        // Short text in an editor shows from its first line: the empty line after the final
        // newline does not scroll it up.
        for (int i = 0; i < area.count(); ++i)
            qobject_cast<TextOutputView*>(area.viewAt(i))->view();
        QCoreApplication::processEvents();
        for (int i = 0; i < area.count(); ++i) {
            auto* view = qobject_cast<TextOutputView*>(area.viewAt(i))->view();
            QCOMPARE(view->verticalScrollBar()->value(), 0);
            QVERIFY(view->height() >= 2 * view->fontMetrics().lineSpacing() || i > 0);
        }
    }

    // Painted text is as tall as its lines; a drag over it selects, in the editor it becomes.
    void paintedTextSelects() {
        OutputArea area(m_service.get());
        area.resize(700, 300);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        area.append(stream("stdout", QStringLiteral("hello world from the kernel\nsecond\n")));
        auto* view = qobject_cast<TextOutputView*>(area.viewAt(0));
        QTRY_VERIFY(view->isVisible() && view->width() > 600);
        QVERIFY(!view->hasEditor());
        const int line = view->fontMetrics().lineSpacing();
        QVERIFY(view->height() >= 2 * line && view->height() < 3 * line);
        QTest::mousePress(view, Qt::LeftButton, {}, QPoint(3, line / 2));
        QVERIFY(view->hasEditor());
        QTest::mouseMove(view, QPoint(view->width() - 5, line + line / 2));
        QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(view->width() - 5, line + line / 2));
        const QString selected = view->view()->textCursor().selectedText();
        QVERIFY2(selected.startsWith(QStringLiteral("hello world")), qPrintable(selected));
        QTRY_VERIFY(view->height() >= 2 * line && view->height() < 3 * line);
        // Wrapped in a narrow cell, long lines still fit in painted text.
        area.append(display({{QStringLiteral("text/plain"), QString(300, u'x')}}));
        auto* wrapped = qobject_cast<TextOutputView*>(area.viewAt(1));
        QTRY_VERIFY(wrapped->height() > 2 * line);
        QVERIFY(!wrapped->hasEditor());
    }

    void colouredTraceback() {
        OutputArea area(m_service.get());
        area.resize(900, 400);
        area.append(m_real.value(QStringLiteral("error")).toObject());
        auto* view = qobject_cast<TextOutputView*>(area.viewAt(0));
        QVERIFY(view);
        QCOMPARE(view->objectName(), QStringLiteral("errorOutput"));
        const QString text = area.text();
        QVERIFY(text.contains(QStringLiteral("ZeroDivisionError: float division by zero")));
        QVERIFY(text.contains(QStringLiteral("Traceback (most recent call last)")));
        QVERIFY(!text.contains(QChar(0x1b)));
        QCOMPARE(colourOf(view, QStringLiteral("ZeroDivisionError")), QColor(0xe75c58));
        QCOMPARE(colourOf(view, QStringLiteral("def ")), QColor(0x008700)); // 38;5;28
    }

    void dataframeTable() {
        OutputArea area(m_service.get());
        area.resize(700, 400);
        area.append(
            display({{QStringLiteral("text/html"), m_real.value(QStringLiteral("html"))},
                     {QStringLiteral("text/plain"), m_real.value(QStringLiteral("text"))}}));
        auto* html = qobject_cast<RichOutputView*>(area.viewAt(0));
        QVERIFY(html);
        QCOMPARE(html->format(), RichOutputView::Format::Html);
        const QList<QTextTable*> tables = html->document()->findChildren<QTextTable*>();
        QCOMPARE(tables.size(), 1);
        QTextTable* table = tables.front();
        QCOMPARE(table->rows(), 7); // two header rows (columns, index name) and five jobs
        QCOMPARE(table->columns(), 4);
        QCOMPARE(table->format().headerRowCount(), 2);
        QVERIFY(table->format().borderCollapse());
        QCOMPARE(table->cellAt(0, 0).format().background().color(),
                 html->palette().color(QPalette::Button));
        QCOMPARE(table->cellAt(2, 1).format().background().color(),
                 html->palette().color(QPalette::AlternateBase));
        QVERIFY(html->toPlainText().contains(QStringLiteral("fmnist-3")));
        QVERIFY(!html->toPlainText().contains(QStringLiteral("vertical-align"))); // <style> unseen
        // Nothing loads from files: an <img> of /dev/zero shows nothing and does not hang.
        RichOutputView hostile(RichOutputView::Format::Html,
                               QStringLiteral("<img src=\"/dev/zero\"><img src=\"file:///etc/"
                                              "passwd\">text"));
        QCOMPARE(hostile.toPlainText().trimmed().right(4), QStringLiteral("text"));
    }

    void figures() {
        OutputArea area(m_service.get());
        area.resize(1000, 800);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        area.append(realOutputs());
        QJsonObject retina = realOutputs();
        retina.insert(
            QStringLiteral("metadata"),
            QJsonObject{{QStringLiteral("image/png"), QJsonObject{{QStringLiteral("width"), 320}}},
                        {QStringLiteral("needs_background"), QStringLiteral("light")}});
        area.append(retina);
        area.append(display({{QStringLiteral("image/svg+xml"), m_real.value(QStringLiteral("svg"))},
                             {QStringLiteral("text/plain"), QStringLiteral("<Figure>")}}));
        area.append(display({{QStringLiteral("image/png"), QStringLiteral("bm90IGEgcG5n")}}));
        auto* png = qobject_cast<ImageOutputView*>(area.viewAt(0));
        QVERIFY(png);
        QCOMPARE(png->pixmap().size(), QSize(640, 320)); // the figure's pixels
        QCOMPARE(png->naturalSize(), QSize(640, 320));
        QTRY_COMPARE(png->height(), 320);
        QCOMPARE(qobject_cast<ImageOutputView*>(area.viewAt(1))->naturalSize(), QSize(320, 160));
        auto* svg = qobject_cast<ImageOutputView*>(area.viewAt(2));
        QVERIFY(svg && svg->isSvg());
        QVERIFY(svg->naturalSize().width() > 300);
        QVERIFY(colourCount(svg->grab().toImage()) > 4); // lines and text, not a blank
        QVERIFY(colourCount(png->grab().toImage()) > 4);
        QCOMPARE(area.viewAt(3)->objectName(), QStringLiteral("errorOutput")); // not a PNG
        // Narrower than the figure: scaled down, aspect kept.
        area.resize(400, 800);
        QTRY_COMPARE(png->shownSize().width(), png->width());
        QCOMPARE(png->shownSize().height(), png->width() / 2);
        shoot(&area, "notebook-outputs-figures.png");
    }

    void markdownAndJson() {
        OutputArea area(m_service.get());
        area.append(display({{QStringLiteral("text/markdown"),
                              QStringLiteral("## Results\n\nThe *loss* goes down.")},
                             {QStringLiteral("text/plain"), QStringLiteral("md")}}));
        area.append(display(
            {{QStringLiteral("application/json"), QJsonObject{{QStringLiteral("lr"), 0.01}}},
             {QStringLiteral("text/plain"), QStringLiteral("{...}")}}));
        area.append(display({{QStringLiteral("text/latex"), QStringLiteral("$x^2$")},
                             {QStringLiteral("text/plain"), QStringLiteral("x**2")}}));
        area.append(
            display({{QStringLiteral("application/vnd.jupyter.widget-view+json"), QJsonObject{}}}));
        auto* md = qobject_cast<RichOutputView*>(area.viewAt(0));
        QVERIFY(md);
        QCOMPARE(md->format(), RichOutputView::Format::Markdown);
        QVERIFY(md->toPlainText().startsWith(QStringLiteral("Results")));
        QVERIFY(md->document()->firstBlock().charFormat().fontWeight() > QFont::Normal ||
                md->document()->firstBlock().blockFormat().headingLevel() == 2);
        QCOMPARE(qobject_cast<TextOutputView*>(area.viewAt(1))->shownText(),
                 QStringLiteral("{\n  \"lr\": 0.01\n}"));
        QCOMPARE(qobject_cast<TextOutputView*>(area.viewAt(2))->shownText(),
                 QStringLiteral("x**2"));
        QCOMPARE(area.viewAt(3)->objectName(), QStringLiteral("unknownOutput"));
        QVERIFY(area.text().contains(QStringLiteral("widget-view")));
    }

    void jobCardFollowsTheStore() {
        OutputArea area(m_service.get());
        QSignalSpy stop(&area, &OutputArea::stopJob);
        QSignalSpy logs(&area, &OutputArea::openLogs);
        area.append(jobCard(QStringLiteral("fmnist-live"), QStringLiteral("InProgress")));
        QCOMPARE(area.jobCards().size(), 1);
        JobOutputWidget* card = area.jobCards().front();
        QTRY_COMPARE(card->lossPoints(), 5);
        QCOMPARE(card->status(), QStringLiteral("InProgress"));
        QCOMPARE(card->totalSteps(), 100);
        QTest::mouseClick(card->findChild<QPushButton*>(QStringLiteral("jobOutputLogs")),
                          Qt::LeftButton);
        QCOMPARE(logs.size(), 1);
        auto* stopButton = card->findChild<QPushButton*>(QStringLiteral("jobOutputStop"));
        QVERIFY(stopButton->isEnabled());
        QTest::mouseClick(stopButton, Qt::LeftButton);
        QCOMPARE(stop.size(), 1);
        QCOMPARE(stop.front().front().toString(), QStringLiteral("fmnist-live"));

        // The SDK's display update keeps the card (and what it read).
        area.replaceAt(0, jobCard(QStringLiteral("fmnist-live"), QStringLiteral("Completed")));
        QCOMPARE(area.jobCards().front(), card);
        // The job ends in the store: the card follows on the data service's refresh.
        for (int step = 50; step <= 100; step += 10)
            m_writer->addMetric(m_job, "train:loss", {step, 1795300000.0 + step, 0.5});
        m_writer->setStatus(m_job, "Completed", "Completed", "", 1795300200);
        m_writer->flush();
        QTRY_COMPARE_WITH_TIMEOUT(card->status(), QStringLiteral("Completed"), 10000);
        QTRY_COMPARE(card->lossPoints(), 11);
        QVERIFY(!stopButton->isEnabled());

        // A job the store never held (a notebook run elsewhere) shows what its output says.
        area.append(jobCard(QStringLiteral("run-elsewhere"), QStringLiteral("Failed")));
        QCOMPARE(area.jobCards().size(), 2);
        QTRY_COMPARE(area.jobCards().back()->status(), QStringLiteral("Failed"));
        QVERIFY(area.jobCards().back()->ended());
    }

    void tuningCards() {
        OutputArea area(m_service.get());
        QSignalSpy stop(&area, &OutputArea::stopTuning);
        QSignalSpy open(&area, &OutputArea::openTuning);
        area.append(tuningCard(QStringLiteral("tune-live"),
                               {{QStringLiteral("status"), QStringLiteral("InProgress")},
                                {QStringLiteral("max_jobs"), 8}}));
        area.append(tuningCard(QStringLiteral("tune-done")));
        area.append(tuningCard(
            QStringLiteral("tune-elsewhere"),
            QJsonDocument::fromJson(
                QByteArray(
                    "{'status': 'Completed', 'max_jobs': 3, 'done': 3,"
                    " 'objective': {'name': 'eval:loss', 'type': 'Minimize'},"
                    " 'best_job': 'e-2', 'best_objective': 0.21,"
                    " 'jobs': [{'job': 'e-1', 'objective': 0.3},"
                    " {'job': 'e-2', 'objective': 0.21}, {'job': 'e-3', 'objective': 0.25}]}")
                    .replace('\'', '"'))
                .object()));
        QCOMPARE(area.tuningCards().size(), 3);
        TuningOutputWidget* live = area.tuningCards().at(0);
        TuningOutputWidget* done = area.tuningCards().at(1);
        TuningOutputWidget* elsewhere = area.tuningCards().at(2);
        QTRY_VERIFY(live->fromStore() && done->fromStore());
        QCOMPARE(live->summary().jobs.size(), 8);
        QCOMPARE(live->summary().inProgress, 2);
        QCOMPARE(live->summary().done, 6);
        QVERIFY(!live->ended());
        QVERIFY(done->ended());
        QCOMPARE(done->summary().done, 12);
        QVERIFY(done->summary().bestObjective.has_value());
        QVERIFY(done->text().contains(QStringLiteral("12/12 training jobs done")));
        QVERIFY(done->text().contains(QStringLiteral("Best eval:accuracy")));
        QVERIFY(!done->findChild<QPushButton*>(QStringLiteral("tuningOutputStop"))->isEnabled());
        // Not in the store: the payload stays.
        QVERIFY(!elsewhere->fromStore());
        QCOMPARE(elsewhere->summary().bestJob, QStringLiteral("e-2"));
        QVERIFY(!elsewhere->summary().maximize);
        auto* bars = elsewhere->findChild<TuningOutputBars*>();
        QVERIFY(bars->describe().contains(QStringLiteral("3 training jobs")));

        QTest::mouseClick(live->findChild<QPushButton*>(QStringLiteral("tuningOutputOpen")),
                          Qt::LeftButton);
        QTest::mouseClick(live->findChild<QPushButton*>(QStringLiteral("tuningOutputStop")),
                          Qt::LeftButton);
        QCOMPARE(open.size(), 1);
        QCOMPARE(stop.size(), 1);
        QCOMPARE(stop.front().front().toString(), QStringLiteral("tune-live"));

        // The tuning job ends in the store: the card follows.
        store::StoreReader reader(m_db.toStdString());
        const store::TuningId id = reader.tuningJob("tune-live")->id;
        for (int ordinal = 6; ordinal < 8; ++ordinal)
            m_writer->setTuningTrainingOutcome(id, ordinal, "Completed", 0.5, false, "");
        m_writer->setTuningStatus(id, "Stopped", "stopped from a notebook", 1795401000);
        m_writer->flush();
        QTRY_COMPARE_WITH_TIMEOUT(live->summary().status, QStringLiteral("Stopped"), 10000);
        QVERIFY(live->ended());
        QVERIFY(live->text().contains(QStringLiteral("stopped from a notebook")));
    }

    void updateInPlaceAndClear() {
        OutputArea area(m_service.get());
        const QJsonObject first = display({{QStringLiteral("text/plain"), QStringLiteral("1")}});
        area.setOutputs({stream("stdout", QStringLiteral("a\n")), first,
                         jobCard(QStringLiteral("fmnist-live"), QStringLiteral("InProgress"))});
        QCOMPARE(area.count(), 3);
        QWidget* streamView = area.viewAt(0);
        QWidget* card = area.viewAt(2);
        // The document's outputs after more stream text and a display update.
        area.setOutputs({stream("stdout", QStringLiteral("a\nb 1%\r")),
                         display({{QStringLiteral("text/plain"), QStringLiteral("2")}}),
                         jobCard(QStringLiteral("fmnist-live"), QStringLiteral("Completed"))});
        QCOMPARE(area.viewAt(0), streamView);
        QCOMPARE(area.viewAt(2), card);
        QCOMPARE(qobject_cast<TextOutputView*>(streamView)->shownText(), QStringLiteral("a\nb 1%"));
        QVERIFY(area.text().contains(QStringLiteral("2")));
        area.replaceAt(1, display({{QStringLiteral("text/html"), QStringLiteral("<b>three</b>")}}));
        QVERIFY(qobject_cast<RichOutputView*>(area.viewAt(1)));
        area.replaceAt(2, first); // a different kind: a new view
        QCOMPARE(area.jobCards().size(), 0);
        QPointer<QWidget> gone = streamView;
        area.clear();
        QCOMPARE(area.count(), 0);
        QVERIFY(area.isHidden());
        QTRY_VERIFY(gone.isNull());
    }

    void longStreamStaysSmall() {
        OutputArea area(m_service.get());
        area.resize(800, 600);
        QString chunk;
        int line = 0;
        for (int c = 0; c < 20; ++c) {
            chunk.clear();
            for (int i = 0; i < 1000; ++i)
                chunk += QStringLiteral("line %1 of the training log\n").arg(++line);
            area.append(stream("stdout", chunk));
        }
        QCOMPARE(area.count(), 1);
        auto* view = qobject_cast<TextOutputView*>(area.viewAt(0));
        QCOMPARE(view->lineCount(), 20000);
        QVERIFY(view->hiddenLines() >= 20000 - TextOutputView::kMaxShownLines - 1000);
        QCOMPARE(view->hiddenLines() + view->view()->document()->blockCount() - 1, 20000);
        QVERIFY(view->shownText().endsWith(QStringLiteral("line 20000 of the training log\n")));
        QVERIFY(!view->findChild<QLabel*>(QStringLiteral("textOutputHiddenLines"))->isHidden());
        const int lineHeight = view->view()->fontMetrics().lineSpacing();
        QVERIFY(view->view()->height() <= (TextOutputView::kAutoHeightLines + 1) * lineHeight + 8);
        QCOMPARE(area.output(0).value(QStringLiteral("text")).toString().count(u'\n'), 20000);
    }

    void screenshots_data() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
    void screenshots() {
        QFETCH(bool, dark);
        applyTheme(*qobject_cast<QApplication*>(QCoreApplication::instance()),
                   dark ? ThemeChoice::Dark : ThemeChoice::Light);
        // A column like the notebook editor's: outputs at the top, the rest of the page empty.
        QScrollArea page;
        page.setWidgetResizable(true);
        auto* column = new QWidget;
        auto* layout = new QVBoxLayout(column);
        auto* area = new OutputArea(m_service.get());
        layout->addWidget(area);
        layout->addStretch(1);
        fill(*area);
        page.setWidget(column);
        page.resize(960, 2200);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QCOMPARE(area->count(), 10);
        QTRY_VERIFY(area->tuningCards().front()->fromStore());
        QTRY_VERIFY(area->jobCards().front()->lossPoints() > 0);
        shoot(&page, dark ? "notebook-outputs-dark.png" : "notebook-outputs-light.png");
        applyTheme(*qobject_cast<QApplication*>(QCoreApplication::instance()), ThemeChoice::Light);
    }
};

QTEST_MAIN(TestNotebookOutputs)
#include "test_notebook_outputs.moc"
