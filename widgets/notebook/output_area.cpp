#include "widgets/notebook/output_area.h"

#include "models/notebook/notebook_document.h"
#include "widgets/common/theme.h"
#include "widgets/notebook/auto_height_browser.h"
#include "widgets/notebook/job_output_widget.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPixmap>
#include <QRegularExpression>
#include <QTextDocument>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

// Longer outputs keep their end: a runaway loop's print should not freeze the editor.
constexpr int kMaxShownLines = 2000;

QString field(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toString();
}

// Tracebacks written by IPython carry ANSI colour codes.
QString withoutAnsi(QString text) {
    static const QRegularExpression ansi(QStringLiteral("\x1b\\[[0-9;]*[A-Za-z]"));
    return text.remove(ansi);
}

QString lastLines(const QString& text) {
    QString t = text.endsWith(QLatin1Char('\n')) ? text.chopped(1) : text;
    const qsizetype lines = t.count(QLatin1Char('\n')) + 1;
    if (lines <= kMaxShownLines)
        return t;
    qsizetype at = t.size();
    for (int i = 0; i < kMaxShownLines; ++i)
        at = t.lastIndexOf(QLatin1Char('\n'), at - 1);
    return OutputArea::tr("… %n earlier lines not shown\n", nullptr,
                          static_cast<int>(lines - kMaxShownLines)) +
           t.mid(at + 1);
}

QColor errorColour() {
    return darkThemeActive() ? QColor(0xff, 0x8a, 0x80) : QColor(0xb3, 0x26, 0x1e);
}

// Plain text in a browser as tall as its wrapped lines (a word-wrapped QLabel guesses its
// height before it knows its width and leaves gaps).
AutoHeightBrowser* textView(const QString& text, QWidget* parent) {
    auto* b = new AutoHeightBrowser(parent);
    b->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    b->document()->setDocumentMargin(2);
    b->setPlainText(text);
    return b;
}

void tint(QWidget* w, QPalette::ColorRole role, const QColor& colour) {
    QPalette p = w->palette();
    p.setColor(role, colour);
    w->setPalette(p);
}

} // namespace

QString jobOfOutput(const QJsonObject& output) {
    return output.value(QStringLiteral("data"))
        .toObject()
        .value(QLatin1String(models::kJobMimeType))
        .toObject()
        .value(QStringLiteral("job"))
        .toString();
}

OutputArea::OutputArea(models::DataService* service, QWidget* parent)
    : QWidget(parent)
    , m_service(service) {
    setObjectName(QStringLiteral("cellOutputs"));
    m_layout = new QVBoxLayout(this);
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    hide();
}

QWidget* OutputArea::build(const QJsonObject& output) {
    const QString type = field(output, "output_type");
    if (type == QLatin1String("stream")) {
        AutoHeightBrowser* b =
            textView(lastLines(models::joinedText(output.value(QStringLiteral("text")))), this);
        b->setObjectName(QStringLiteral("streamOutput"));
        if (field(output, "name") == QLatin1String("stderr")) {
            b->setObjectName(QStringLiteral("stderrOutput"));
            b->viewport()->setAutoFillBackground(true);
            tint(b->viewport(), QPalette::Base,
                 darkThemeActive() ? QColor(0x3a, 0x22, 0x22) : QColor(0xfd, 0xec, 0xea));
        }
        return b;
    }
    if (type == QLatin1String("error")) {
        QString text = field(output, "ename") + QStringLiteral(": ") + field(output, "evalue");
        QStringList lines;
        for (const QJsonValue& v : output.value(QStringLiteral("traceback")).toArray())
            lines.append(withoutAnsi(v.toString()));
        // A traceback often repeats the message as its first line.
        if (!lines.isEmpty() && text.startsWith(lines.front().trimmed()))
            lines.removeFirst();
        if (!lines.isEmpty())
            text += QLatin1Char('\n') + lines.join(QLatin1Char('\n'));
        AutoHeightBrowser* b = textView(lastLines(text), this);
        b->setObjectName(QStringLiteral("errorOutput"));
        tint(b, QPalette::Text, errorColour());
        return b;
    }
    const QJsonObject data = output.value(QStringLiteral("data")).toObject();
    if (const QString job = jobOfOutput(output); !job.isEmpty()) {
        auto* card = new JobOutputWidget(job, m_service, this);
        card->setInfo(data.value(QLatin1String(models::kJobMimeType)).toObject());
        connect(card, &JobOutputWidget::openLogs, this, &OutputArea::openLogs);
        connect(card, &JobOutputWidget::openInsights, this, &OutputArea::openInsights);
        connect(card, &JobOutputWidget::stopJob, this, &OutputArea::stopJob);
        return card;
    }
    if (data.contains(QStringLiteral("text/html"))) {
        auto* b = new AutoHeightBrowser(this);
        b->setObjectName(QStringLiteral("htmlOutput"));
        b->setHtml(models::joinedText(data.value(QStringLiteral("text/html"))));
        return b;
    }
    if (data.contains(QStringLiteral("image/png"))) {
        QPixmap image;
        image.loadFromData(
            QByteArray::fromBase64(data.value(QStringLiteral("image/png")).toString().toLatin1()));
        auto* l = new QLabel(this);
        l->setObjectName(QStringLiteral("imageOutput"));
        l->setPixmap(image);
        return l;
    }
    AutoHeightBrowser* b =
        textView(lastLines(models::joinedText(data.value(QStringLiteral("text/plain")))), this);
    b->setObjectName(QStringLiteral("textOutput"));
    return b;
}

void OutputArea::replaceAt(int index, const QJsonObject& output) {
    Item& item = m_items[index];
    QWidget* old = item.widget;
    item.output = output;
    item.widget = build(output);
    m_layout->replaceWidget(old, item.widget);
    delete old;
}

void OutputArea::setOutputs(const QJsonArray& outputs) {
    const int n = static_cast<int>(outputs.size());
    for (int i = 0; i < n; ++i) {
        const QJsonObject o = outputs.at(i).toObject();
        if (i >= m_items.size()) {
            append(o);
            continue;
        }
        Item& item = m_items[i];
        if (item.output == o)
            continue;
        // An updated job display keeps its card: the card follows the job by itself.
        const QString job = jobOfOutput(o);
        if (!job.isEmpty() && job == jobOfOutput(item.output)) {
            item.output = o;
            if (auto* card = qobject_cast<JobOutputWidget*>(item.widget))
                card->setInfo(o.value(QStringLiteral("data"))
                                  .toObject()
                                  .value(QLatin1String(models::kJobMimeType))
                                  .toObject());
            continue;
        }
        replaceAt(i, o);
    }
    while (m_items.size() > n) {
        delete m_items.back().widget;
        m_items.removeLast();
    }
    setVisible(!m_items.isEmpty());
}

void OutputArea::append(const QJsonObject& output) {
    Item item{output, build(output)};
    m_layout->addWidget(item.widget);
    m_items.append(item);
    show();
}

void OutputArea::clear() {
    setOutputs({});
}

QList<JobOutputWidget*> OutputArea::jobCards() const {
    QList<JobOutputWidget*> cards;
    for (const Item& i : m_items)
        if (auto* c = qobject_cast<JobOutputWidget*>(i.widget))
            cards.append(c);
    return cards;
}

QString OutputArea::text() const {
    QStringList parts;
    for (const Item& i : m_items) {
        if (auto* l = qobject_cast<QLabel*>(i.widget))
            parts.append(l->text());
        else if (auto* b = qobject_cast<QTextBrowser*>(i.widget))
            parts.append(b->toPlainText());
        else if (auto* c = qobject_cast<JobOutputWidget*>(i.widget))
            parts.append(c->job());
    }
    return parts.join(QLatin1Char('\n'));
}

} // namespace studio::widgets
