#include "widgets/notebook/text_output_view.h"

#include "widgets/common/theme.h"

#include <QAbstractTextDocumentLayout>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QFontDatabase>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>

#include <cmath>

namespace studio::widgets {

namespace {

// Lines trimmed off the top in batches, so trimming is not paid on every chunk.
constexpr int kTrimSlack = 1000;
// Around the text, as the editor's document margin.
constexpr int kMargin = 2;

bool lastLineEmpty(QStringView text) {
    QStringView last = text.mid(text.lastIndexOf(u'\n') + 1);
    if (last.endsWith(u'\r'))
        last.chop(1);
    return last.isEmpty();
}

} // namespace

TextOutputView::TextOutputView(Tone tone, QWidget* parent)
    : QWidget(parent)
    , m_tone(tone) {
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setCursor(Qt::IBeamCursor); // the painted text selects like the editor it becomes
    fitPaintedHeight();
}

QColor TextOutputView::background() const {
    return darkThemeActive() ? QColor(0x3a, 0x22, 0x22) : QColor(0xfd, 0xdd, 0xdd);
}

void TextOutputView::setText(QStringView text) {
    if (!m_view && text.count(u'\n') < kAutoHeightLines) {
        m_raw = text.toString();
        m_newlines = m_raw.count(u'\n');
        m_openLineEmpty = lastLineEmpty(m_raw);
        m_painted.setText(m_raw, font(), palette());
        fitPaintedHeight();
        update();
        return;
    }
    if (!m_view)
        makeEditor();
    m_view->document()->clear();
    m_openLineState.reset();
    m_newlines = 0;
    m_hidden = 0;
    m_openLineEmpty = true;
    // Only the last kMaxShownLines lines are laid out; the colours set before them still count.
    qsizetype start = text.size();
    for (int lines = 0; lines <= kMaxShownLines && start > 0; ++lines)
        start = text.lastIndexOf(u'\n', start - 1);
    if (start > 0) {
        const QStringView hidden = text.left(start + 1);
        m_openLineState.feed(hidden);
        m_newlines = hidden.count(u'\n');
        m_hidden = m_newlines;
        text = text.mid(start + 1);
    }
    editorReplaceLastLine(text);
}

void TextOutputView::replaceLastLine(QStringView tail) {
    if (m_view) {
        editorReplaceLastLine(tail);
        return;
    }
    m_raw.truncate(m_raw.lastIndexOf(u'\n') + 1);
    m_raw += tail;
    if (m_raw.count(u'\n') >= kAutoHeightLines) {
        makeEditor();
        return;
    }
    setText(QString(m_raw)); // a copy: setText replaces m_raw
}

void TextOutputView::makeEditor() {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_note = new QLabel(this);
    m_note->setObjectName(QStringLiteral("textOutputHiddenLines"));
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_note->hide();
    layout->addWidget(m_note);

    m_view = new QPlainTextEdit(this);
    m_view->setObjectName(QStringLiteral("textOutputText"));
    m_view->setReadOnly(true);
    // Selectable with the mouse (and copied with the keyboard), without a caret: output is
    // read, not edited, and Tab moves between cells, not into outputs.
    m_view->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_view->setFocusPolicy(Qt::ClickFocus);
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_view->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_view->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    // Output never changes by the reader's hand: no undo history to grow with it.
    m_view->document()->setUndoRedoEnabled(false);
    m_view->document()->setDocumentMargin(kMargin);
    if (m_tone == Tone::Error) {
        QPalette p = m_view->palette();
        p.setColor(QPalette::Base, background());
        m_view->setPalette(p);
    } else {
        m_view->viewport()->setAutoFillBackground(false); // on the notebook's page
    }
    m_view->installEventFilter(this);
    layout->addWidget(m_view);

    unsetCursor();
    setMinimumHeight(0);
    setMaximumHeight(QWIDGETSIZE_MAX);
    const QString raw = std::exchange(m_raw, QString());
    m_painted.clear();
    setText(raw);
    m_view->show();
    layout->activate();
}

void TextOutputView::editorReplaceLastLine(QStringView tail) {
    QScrollBar* bar = m_view->verticalScrollBar();
    const bool following = bar->value() >= bar->maximum();
    QTextCursor cursor(m_view->document());
    cursor.beginEditBlock();
    cursor.movePosition(QTextCursor::End);
    cursor.movePosition(QTextCursor::StartOfBlock, QTextCursor::KeepAnchor);
    cursor.removeSelectedText();

    // Complete lines, then the open line, whose start state the next change begins from.
    const qsizetype split = tail.lastIndexOf(u'\n') + 1;
    models::AnsiParser parser = m_openLineState;
    if (split > 0) {
        insertSpans(cursor, parser.feed(tail.left(split)));
        m_newlines += tail.left(split).count(u'\n');
        m_openLineState = parser;
    }
    QStringView open = tail.mid(split);
    if (open.endsWith(u'\r'))
        open.chop(1);
    m_openLineEmpty = open.isEmpty();
    insertSpans(cursor, parser.feed(open));
    trimToShownLines(cursor);
    // One edit block: cursors skip laying out the blocks they pass (QTextCursorPrivate::setX).
    cursor.endEditBlock();

    updateNote();
    fitHeight();
    if (m_scrolled && following)
        bar->setValue(bar->maximum());
}

void TextOutputView::insertSpans(QTextCursor& cursor,
                                 const QVector<models::AnsiSpan>& spans) const {
    const QPalette& palette = m_view->palette();
    for (const models::AnsiSpan& span : spans)
        cursor.insertText(span.text, ansiCharFormat(span.style, palette));
}

void TextOutputView::trimToShownLines(QTextCursor& cursor) {
    QTextDocument* doc = m_view->document();
    const int extra = doc->blockCount() - kMaxShownLines;
    if (extra < kTrimSlack)
        return;
    cursor.setPosition(0);
    cursor.setPosition(doc->findBlockByNumber(extra).position(), QTextCursor::KeepAnchor);
    cursor.removeSelectedText();
    m_hidden += extra;
}

void TextOutputView::updateNote() {
    m_note->setVisible(m_hidden > 0);
    if (m_hidden > 0)
        m_note->setText(tr("… %1 earlier lines not shown (the notebook keeps them)")
                            .arg(QLocale().toString(m_hidden)));
}

qsizetype TextOutputView::lineCount() const {
    return m_newlines + (m_openLineEmpty ? 0 : 1);
}

QString TextOutputView::shownText() const {
    return m_view ? m_view->document()->toPlainText() : models::stripAnsi(m_raw);
}

QPlainTextEdit* TextOutputView::view() {
    if (!m_view)
        makeEditor();
    return m_view;
}

QString TextOutputView::describe() const {
    return tr("%n lines of output: %1", nullptr, static_cast<int>(lineCount()))
        .arg(shownText().left(300));
}

void TextOutputView::paintEvent(QPaintEvent*) {
    if (m_view)
        return; // the editor paints
    QPainter p(this);
    if (m_tone == Tone::Error)
        p.fillRect(rect(), background());
    p.setPen(palette().color(QPalette::Text));
    m_painted.draw(&p, QPointF(kMargin, kMargin), width() - 2 * kMargin);
}

void TextOutputView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (!m_view)
        fitPaintedHeight();
}

void TextOutputView::forward(QMouseEvent* event) {
    QWidget* target = m_view->viewport();
    QMouseEvent copy(event->type(), target->mapFrom(this, event->position()),
                     event->globalPosition(), event->button(), event->buttons(),
                     event->modifiers());
    QCoreApplication::sendEvent(target, &copy);
}

void TextOutputView::mousePressEvent(QMouseEvent* event) {
    if (m_view && !m_forwarding) {
        QWidget::mousePressEvent(event);
        return;
    }
    if (!m_view)
        makeEditor();
    m_forwarding = true; // this widget holds the mouse until the release
    forward(event);
}

void TextOutputView::mouseMoveEvent(QMouseEvent* event) {
    if (m_forwarding)
        forward(event);
    else
        QWidget::mouseMoveEvent(event);
}

void TextOutputView::mouseReleaseEvent(QMouseEvent* event) {
    if (!m_forwarding) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    forward(event);
    m_forwarding = false;
}

void TextOutputView::mouseDoubleClickEvent(QMouseEvent* event) {
    if (!m_view)
        makeEditor();
    forward(event);
}

void TextOutputView::contextMenuEvent(QContextMenuEvent* event) {
    if (!m_view)
        makeEditor();
    QContextMenuEvent copy(event->reason(), m_view->viewport()->mapFrom(this, event->pos()),
                           event->globalPos(), event->modifiers());
    QCoreApplication::sendEvent(m_view->viewport(), &copy);
}

bool TextOutputView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view && event->type() == QEvent::Resize)
        fitHeight();
    return QWidget::eventFilter(watched, event);
}

void TextOutputView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    const QEvent::Type t = event->type();
    if (t != QEvent::FontChange && t != QEvent::StyleChange && t != QEvent::PaletteChange)
        return;
    if (m_view) {
        fitHeight();
        return;
    }
    m_painted.setText(m_raw, font(), palette()); // colours follow the theme
    fitPaintedHeight();
}

// Painted text is as tall as it is laid out; past kAutoHeightLines lines (long lines wrapped
// in a narrow view) it moves into an editor, which scrolls.
void TextOutputView::fitPaintedHeight() {
    const int lineHeight = fontMetrics().lineSpacing();
    const qreal content = m_painted.heightAt(std::max(1, width() - 2 * kMargin));
    if (isVisible() && content > kAutoHeightLines * lineHeight) {
        makeEditor();
        return;
    }
    const int h = static_cast<int>(std::ceil(std::max<qreal>(content, lineHeight))) + 2 * kMargin;
    if (minimumHeight() != h || maximumHeight() != h)
        setFixedHeight(h);
}

// As tall as the wrapped text up to kAutoHeightLines lines; a scrolled view of that height past
// them. A final empty line (text that ends with a newline) takes no room.
void TextOutputView::fitHeight() {
    QTextDocument* doc = m_view->document();
    const int lineHeight = QFontMetrics(m_view->font()).lineSpacing();
    const int most = kAutoHeightLines * lineHeight;
    const int blocks = doc->blockCount() - (m_openLineEmpty && doc->blockCount() > 1 ? 1 : 0);
    qreal content = 0;
    if (blocks <= kAutoHeightLines) {
        QAbstractTextDocumentLayout* layout = doc->documentLayout();
        QTextBlock block = doc->begin();
        for (int i = 0; i < blocks && block.isValid() && content <= most; ++i) {
            content += layout->blockBoundingRect(block).height();
            block = block.next();
        }
    } else {
        content = most + 1;
    }
    m_scrolled = content > most;
    m_view->setVerticalScrollBarPolicy(m_scrolled ? Qt::ScrollBarAsNeeded : Qt::ScrollBarAlwaysOff);
    // All of the text is in view; the empty line after a final newline must not scroll it.
    if (!m_scrolled)
        m_view->verticalScrollBar()->setValue(0);
    const int margins =
        static_cast<int>(std::ceil(2 * doc->documentMargin())) + 2 * m_view->frameWidth();
    const int h = static_cast<int>(std::ceil(std::min<qreal>(content, most))) + margins;
    if (m_view->height() != std::max(h, lineHeight + margins))
        m_view->setFixedHeight(std::max(h, lineHeight + margins));
}

} // namespace studio::widgets
