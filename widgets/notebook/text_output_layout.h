// Short notebook output text laid out and painted without a text widget: ANSI-coloured lines in
// the view's font, wrapped at the width as QPlainTextEdit wraps them (at word boundaries, else
// anywhere). A notebook shows hundreds of short outputs, and a QPlainTextEdit each costs ten
// times a painted one; TextOutputView makes an editor only to scroll long text or to select.
// GUI thread only.
#pragma once

#include "models/notebook/ansi_text.h"

#include <QFont>
#include <QList>
#include <QTextCharFormat>
#include <QTextLayout>
#include <QVector>

#include <memory>
#include <vector>

class QPainter;

namespace studio::widgets {

// The format an ANSI style paints with in a view of this palette (no properties for the plain
// style, so the view's own colours apply).
QTextCharFormat ansiCharFormat(const models::AnsiStyle& style, const QPalette& palette);

class TextOutputLayout {
public:
    // Raw text with escape sequences; a final newline starts no line and a final '\r' shows
    // nothing.
    void setText(QStringView text, const QFont& font, const QPalette& palette);
    void clear();
    // The height of the text laid out at this width (the layout is kept for draw()).
    qreal heightAt(qreal width);
    // Draws the text laid out at width with its top left at `at`; the painter's pen is the
    // colour of text without a colour of its own.
    void draw(QPainter* painter, const QPointF& at, qreal width);

private:
    struct Line {
        QString text;
        QList<QTextLayout::FormatRange> formats;
    };
    void layOut(qreal width);

    QVector<Line> m_lines;
    QFont m_font;
    std::vector<std::unique_ptr<QTextLayout>> m_layouts;
    qreal m_width = -1; // what m_layouts were laid out for
    qreal m_height = 0;
};

} // namespace studio::widgets
