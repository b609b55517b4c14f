#include "widgets/notebook/output_area.h"

#include "models/notebook/notebook_document.h"
#include "models/notebook/stream_text.h"
#include "widgets/notebook/image_output_view.h"
#include "widgets/notebook/job_output_widget.h"
#include "widgets/notebook/rich_output_view.h"
#include "widgets/notebook/text_output_view.h"
#include "widgets/notebook/tuning_output_widget.h"

#include <QVBoxLayout>

namespace studio::widgets {

namespace {

const QString kText = QStringLiteral("text");

QString field(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toString();
}

QJsonObject payload(const QJsonObject& output, const QString& mime) {
    return output.value(QStringLiteral("data")).toObject().value(mime).toObject();
}

// What JupyterLab shows for an error: the traceback IPython formatted (with its colours), or
// "ename: evalue" when there is none.
QString errorText(const QJsonObject& output) {
    QStringList lines;
    for (const QJsonValue& v : output.value(QStringLiteral("traceback")).toArray())
        lines.append(v.toString());
    if (lines.isEmpty())
        return field(output, "ename") + QStringLiteral(": ") + field(output, "evalue");
    return lines.join(QLatin1Char('\n'));
}

TextOutputView* textView(const QString& name, TextOutputView::Tone tone, const QString& text,
                         QWidget* parent) {
    auto* view = new TextOutputView(tone, parent);
    view->setObjectName(name);
    view->setText(text);
    return view;
}

} // namespace

OutputArea::OutputArea(models::DataService* service, QWidget* parent)
    : QWidget(parent)
    , m_service(service) {
    setObjectName(QStringLiteral("cellOutputs"));
    m_layout = new QVBoxLayout(this);
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    hide();
}

OutputArea::Item OutputArea::build(const QJsonObject& output) {
    Item item{output, {}, models::OutputKind::Empty, nullptr};
    const models::OutputChoice choice = models::chooseOutput(output);
    item.kind = choice.kind;
    switch (choice.kind) {
    case models::OutputKind::Stream: {
        item.streamText = models::resolveOverwrites(models::joinedText(output.value(kText)));
        item.output.remove(kText);
        const bool stderrStream = field(output, "name") == QLatin1String("stderr");
        item.widget =
            textView(stderrStream ? QStringLiteral("stderrOutput") : QStringLiteral("streamOutput"),
                     stderrStream ? TextOutputView::Tone::Error : TextOutputView::Tone::Normal,
                     item.streamText, this);
        break;
    }
    case models::OutputKind::Error:
        item.widget = textView(QStringLiteral("errorOutput"), TextOutputView::Tone::Error,
                               errorText(output), this);
        break;
    case models::OutputKind::JobCard:
    case models::OutputKind::TuningCard:
        item.widget = buildCard(output, choice);
        break;
    default:
        item.widget = buildRich(output, choice);
        break;
    }
    return item;
}

QWidget* OutputArea::buildRich(const QJsonObject& output, const models::OutputChoice& choice) {
    const QString& mime = choice.mimeType;
    switch (choice.kind) {
    case models::OutputKind::Image:
    case models::OutputKind::Svg: {
        auto* image = new ImageOutputView(this);
        const QString data = models::mimeText(output, mime);
        const QSize size = models::imageMetadataSize(output, mime);
        const bool ok = choice.kind == models::OutputKind::Svg
                            ? image->setSvg(data.toUtf8(), size)
                            : image->setRaster(data.toLatin1(), size);
        if (ok) {
            image->setNeededBackground(models::neededBackground(output));
            return image;
        }
        delete image;
        return textView(QStringLiteral("errorOutput"), TextOutputView::Tone::Error,
                        tr("This %1 output is not an image the studio can read.").arg(mime), this);
    }
    case models::OutputKind::Html:
        return new RichOutputView(RichOutputView::Format::Html, models::mimeText(output, mime),
                                  this);
    case models::OutputKind::Markdown:
        return new RichOutputView(RichOutputView::Format::Markdown, models::mimeText(output, mime),
                                  this);
    case models::OutputKind::Json:
        return textView(
            QStringLiteral("jsonOutput"), TextOutputView::Tone::Normal,
            models::prettyJson(output.value(QStringLiteral("data")).toObject().value(mime)), this);
    case models::OutputKind::Text:
        return textView(QStringLiteral("textOutput"), TextOutputView::Tone::Normal,
                        models::mimeText(output, mime), this);
    default:
        break;
    }
    // Nothing the studio renders (an ipywidget without its text twin, say): say what it was.
    const QStringList types = output.value(QStringLiteral("data")).toObject().keys();
    return textView(QStringLiteral("unknownOutput"), TextOutputView::Tone::Normal,
                    types.isEmpty() ? tr("(an empty output)")
                                    : tr("(no view for %1)").arg(types.join(QStringLiteral(", "))),
                    this);
}

QWidget* OutputArea::buildCard(const QJsonObject& output, const models::OutputChoice& choice) {
    const QJsonObject info = payload(output, choice.mimeType);
    if (choice.kind == models::OutputKind::JobCard) {
        auto* card = new JobOutputWidget(models::jobOfOutput(output), m_service, this);
        card->setInfo(info);
        connect(card, &JobOutputWidget::openLogs, this, &OutputArea::openLogs);
        connect(card, &JobOutputWidget::openInsights, this, &OutputArea::openInsights);
        connect(card, &JobOutputWidget::stopJob, this, &OutputArea::stopJob);
        return card;
    }
    auto* card = new TuningOutputWidget(models::tuningOfOutput(output), m_service, this);
    card->setInfo(info);
    connect(card, &TuningOutputWidget::openTuning, this, &OutputArea::openTuning);
    connect(card, &TuningOutputWidget::stopTuning, this, &OutputArea::stopTuning);
    return card;
}

void OutputArea::add(const QJsonObject& output) {
    Item item = build(output);
    m_layout->addWidget(item.widget);
    m_items.append(item);
    show();
}

void OutputArea::setStreamText(Item& item, const QString& text) {
    auto* view = static_cast<TextOutputView*>(item.widget);
    // Text that only grew (or rewrote its last line) changes the view from that line on.
    const qsizetype kept = item.streamText.lastIndexOf(u'\n') + 1;
    if (text.size() >= kept &&
        QStringView(text).left(kept) == QStringView(item.streamText).left(kept))
        view->replaceLastLine(QStringView(text).mid(kept));
    else
        view->setText(text);
    item.streamText = text;
}

bool OutputArea::updateInPlace(Item& item, const QJsonObject& output) {
    const models::OutputChoice choice = models::chooseOutput(output);
    if (choice.kind != item.kind)
        return false;
    switch (choice.kind) {
    case models::OutputKind::Stream: {
        if (!models::joinsStream(item.output, output))
            return false;
        QString text = models::joinedText(output.value(kText));
        if (text != item.streamText) {
            text = models::resolveOverwrites(text); // a file may hold what nbclient received
            if (text != item.streamText)
                setStreamText(item, text);
        }
        item.output = output;
        item.output.remove(kText);
        return true;
    }
    case models::OutputKind::JobCard: {
        auto* card = qobject_cast<JobOutputWidget*>(item.widget);
        if (!card || models::jobOfOutput(output) != card->job())
            return false;
        card->setInfo(payload(output, choice.mimeType));
        item.output = output;
        return true;
    }
    case models::OutputKind::TuningCard: {
        auto* card = qobject_cast<TuningOutputWidget*>(item.widget);
        if (!card || models::tuningOfOutput(output) != card->tuning())
            return false;
        card->setInfo(payload(output, choice.mimeType));
        item.output = output;
        return true;
    }
    default:
        return item.output == output;
    }
}

void OutputArea::replaceAt(int index, const QJsonObject& output) {
    if (index < 0 || index >= m_items.size())
        return;
    Item& item = m_items[index];
    if (updateInPlace(item, output))
        return;
    Item fresh = build(output);
    m_layout->replaceWidget(item.widget, fresh.widget);
    // Later: a card's own click may be what led here.
    item.widget->hide();
    item.widget->deleteLater();
    item = fresh;
}

void OutputArea::setOutputs(const QJsonArray& outputs) {
    const int n = static_cast<int>(outputs.size());
    for (int i = 0; i < n; ++i) {
        const QJsonObject o = outputs.at(i).toObject();
        if (i < m_items.size())
            replaceAt(i, o);
        else
            add(o);
    }
    while (m_items.size() > n) {
        QWidget* gone = m_items.takeLast().widget;
        gone->hide();
        gone->deleteLater();
    }
    setVisible(!m_items.isEmpty());
}

void OutputArea::append(const QJsonObject& output) {
    if (!m_items.isEmpty() && m_items.back().kind == models::OutputKind::Stream &&
        models::joinsStream(m_items.back().output, output)) {
        Item& item = m_items.back();
        const qsizetype from =
            models::appendResolved(item.streamText, models::joinedText(output.value(kText)));
        static_cast<TextOutputView*>(item.widget)
            ->replaceLastLine(QStringView(item.streamText).mid(from));
        return;
    }
    add(output);
}

void OutputArea::clear() {
    setOutputs({});
}

QJsonObject OutputArea::output(int index) const {
    const Item& item = m_items.at(index);
    if (item.kind != models::OutputKind::Stream)
        return item.output;
    QJsonObject o = item.output;
    o.insert(kText, item.streamText);
    return o;
}

QList<JobOutputWidget*> OutputArea::jobCards() const {
    QList<JobOutputWidget*> cards;
    for (const Item& i : m_items)
        if (auto* c = qobject_cast<JobOutputWidget*>(i.widget))
            cards.append(c);
    return cards;
}

QList<TuningOutputWidget*> OutputArea::tuningCards() const {
    QList<TuningOutputWidget*> cards;
    for (const Item& i : m_items)
        if (auto* c = qobject_cast<TuningOutputWidget*>(i.widget))
            cards.append(c);
    return cards;
}

QString OutputArea::text() const {
    QStringList parts;
    for (const Item& i : m_items) {
        if (auto* t = qobject_cast<TextOutputView*>(i.widget))
            parts.append(t->shownText());
        else if (auto* b = qobject_cast<RichOutputView*>(i.widget))
            parts.append(b->toPlainText());
        else if (auto* c = qobject_cast<JobOutputWidget*>(i.widget))
            parts.append(c->job());
        else if (auto* c = qobject_cast<TuningOutputWidget*>(i.widget))
            parts.append(c->text());
    }
    return parts.join(QLatin1Char('\n'));
}

} // namespace studio::widgets
