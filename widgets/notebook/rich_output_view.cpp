#include "widgets/notebook/rich_output_view.h"

#include <QEvent>
#include <QImage>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>

#include <functional>

namespace studio::widgets {

namespace {

// The bytes of a data: URL ("data:image/png;base64,...."); empty when it is not one.
QByteArray dataUrlBytes(const QUrl& url) {
    if (url.scheme().compare(QLatin1String("data"), Qt::CaseInsensitive) != 0)
        return {};
    const QString text = url.toString(QUrl::FullyEncoded);
    const qsizetype comma = text.indexOf(u',');
    if (comma < 0)
        return {};
    const QString header = text.mid(5, comma - 5);
    const QByteArray payload = text.mid(comma + 1).toLatin1();
    return header.endsWith(QLatin1String(";base64"), Qt::CaseInsensitive)
               ? QByteArray::fromBase64(QByteArray::fromPercentEncoding(payload))
               : QByteArray::fromPercentEncoding(payload);
}

QList<QTextTable*> tablesOf(QTextDocument* doc) {
    QList<QTextTable*> tables;
    std::function<void(QTextFrame*)> walk = [&](QTextFrame* frame) {
        for (QTextFrame* child : frame->childFrames()) {
            if (auto* table = qobject_cast<QTextTable*>(child))
                tables.append(table);
            walk(child);
        }
    };
    walk(doc->rootFrame());
    return tables;
}

void styleCell(QTextTableCell cell, const QBrush& background, const QBrush& border) {
    QTextTableCellFormat format = cell.format().toTableCellFormat();
    if (background.style() != Qt::NoBrush)
        format.setBackground(background);
    format.setBorder(1);
    format.setBorderBrush(border);
    format.setBorderStyle(QTextFrameFormat::BorderStyle_Solid);
    format.setLeftPadding(6);
    format.setRightPadding(6);
    format.setTopPadding(2);
    format.setBottomPadding(2);
    cell.setFormat(format);
    // Numbers line up at the right, as in JupyterLab's tables.
    QTextCursor cursor = cell.firstCursorPosition();
    cursor.setPosition(cell.lastCursorPosition().position(), QTextCursor::KeepAnchor);
    QTextBlockFormat block;
    block.setAlignment(Qt::AlignRight);
    cursor.mergeBlockFormat(block);
}

} // namespace

void styleTables(QTextDocument* doc, const QPalette& palette) {
    const QBrush border(palette.color(QPalette::Mid));
    const QBrush header(palette.color(QPalette::Button));
    const QBrush stripe(palette.color(QPalette::AlternateBase));
    for (QTextTable* table : tablesOf(doc)) {
        QTextTableFormat format = table->format();
        format.setBorderCollapse(true);
        format.setBorder(1);
        format.setBorderBrush(border);
        format.setBorderStyle(QTextFrameFormat::BorderStyle_Solid);
        format.setCellSpacing(0);
        format.setCellPadding(0);
        table->setFormat(format);
        const int headerRows = format.headerRowCount();
        for (int r = 0; r < table->rows(); ++r)
            for (int c = 0; c < table->columns(); ++c) {
                const QTextTableCell cell = table->cellAt(r, c);
                if (cell.row() != r || cell.column() != c)
                    continue; // covered by a spanning cell
                const bool striped = r >= headerRows && (r - headerRows) % 2 == 0;
                styleCell(cell, r < headerRows ? header : striped ? stripe : QBrush(), border);
            }
    }
}

RichOutputView::RichOutputView(Format format, const QString& source, QWidget* parent)
    : AutoHeightBrowser(parent)
    , m_format(format)
    , m_source(source) {
    setObjectName(format == Format::Html ? QStringLiteral("htmlOutput")
                                         : QStringLiteral("markdownOutput"));
    render();
}

void RichOutputView::render() {
    if (m_format == Format::Html)
        setHtml(m_source);
    else
        document()->setMarkdown(m_source);
    styleTables(document(), palette());
}

QVariant RichOutputView::loadResource(int type, const QUrl& name) {
    const QByteArray bytes = dataUrlBytes(name);
    if (type == QTextDocument::ImageResource) {
        QImage image;
        image.loadFromData(bytes);
        return image; // never null: a null variant would make Qt read the file itself
    }
    return bytes;
}

void RichOutputView::changeEvent(QEvent* event) {
    AutoHeightBrowser::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        render();
}

} // namespace studio::widgets
