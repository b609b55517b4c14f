#include "widgets/notebook/text_output_layout.h"

#include "widgets/common/theme.h"

#include <QPainter>
#include <QPalette>

namespace studio::widgets {

QTextCharFormat ansiCharFormat(const models::AnsiStyle& style, const QPalette& palette) {
    QTextCharFormat format;
    if (style.isPlain())
        return format;
    const quint32 text = palette.color(QPalette::Text).rgb() & 0xffffff;
    const quint32 base = palette.color(QPalette::Base).rgb() & 0xffffff;
    const models::AnsiPaint paint = models::ansiPaint(style, darkThemeActive(), text, base);
    if (paint.foreground)
        format.setForeground(QColor::fromRgb(*paint.foreground));
    if (paint.background)
        format.setBackground(QColor::fromRgb(*paint.background));
    if (style.bold)
        format.setFontWeight(QFont::Bold);
    format.setFontItalic(style.italic);
    format.setFontUnderline(style.underline);
    return format;
}

void TextOutputLayout::setText(QStringView text, const QFont& font, const QPalette& palette) {
    clear();
    m_font = font;
    if (text.endsWith(u'\r'))
        text.chop(1);
    models::AnsiParser parser;
    m_lines.append(Line{});
    for (const models::AnsiSpan& span : parser.feed(text)) {
        const QTextCharFormat format = ansiCharFormat(span.style, palette);
        qsizetype start = 0;
        for (;;) {
            const qsizetype newline = span.text.indexOf(u'\n', start);
            const QStringView piece = QStringView(span.text).mid(
                start, newline < 0 ? span.text.size() - start : newline - start);
            Line& line = m_lines.last();
            if (!piece.isEmpty() && !span.style.isPlain())
                line.formats.append(
                    {static_cast<int>(line.text.size()), static_cast<int>(piece.size()), format});
            line.text += piece;
            if (newline < 0)
                break;
            m_lines.append(Line{});
            start = newline + 1;
        }
    }
    if (m_lines.size() > 1 && m_lines.last().text.isEmpty())
        m_lines.removeLast(); // the text ended with a newline
}

void TextOutputLayout::clear() {
    m_lines.clear();
    m_layouts.clear();
    m_width = -1;
    m_height = 0;
}

void TextOutputLayout::layOut(qreal width) {
    if (width == m_width)
        return;
    m_layouts.clear();
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    qreal y = 0;
    for (const Line& line : m_lines) {
        auto layout = std::make_unique<QTextLayout>(line.text, m_font);
        layout->setTextOption(option);
        layout->setFormats(line.formats);
        layout->setCacheEnabled(true);
        layout->beginLayout();
        qreal height = 0;
        for (QTextLine l = layout->createLine(); l.isValid(); l = layout->createLine()) {
            l.setLeadingIncluded(true); // as QPlainTextEdit lays out its lines
            l.setLineWidth(width);
            l.setPosition(QPointF(0, height));
            height += l.height();
        }
        layout->endLayout();
        layout->setPosition(QPointF(0, y));
        y += height;
        m_layouts.push_back(std::move(layout));
    }
    m_width = width;
    m_height = y;
}

qreal TextOutputLayout::heightAt(qreal width) {
    layOut(width);
    return m_height;
}

void TextOutputLayout::draw(QPainter* painter, const QPointF& at, qreal width) {
    layOut(width);
    for (const auto& layout : m_layouts)
        layout->draw(painter, at);
}

} // namespace studio::widgets
