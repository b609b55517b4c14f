#include "widgets/notebook/markdown_cell_widget.h"

#include "widgets/notebook/auto_height_browser.h"
#include "widgets/notebook/cell_source_edit.h"

#include <QFontDatabase>
#include <QKeyEvent>
#include <QVBoxLayout>

namespace studio::widgets {

MarkdownCellWidget::MarkdownCellWidget(const models::NotebookCell& cell, QWidget* parent)
    : CellWidget(cell.id, parent) {
    setObjectName(QStringLiteral("markdownCell"));
    auto* v = new QVBoxLayout(this);
    // The left margin lines the text up with the code cells' editors.
    const int gutter = QFontMetrics(QFontDatabase::systemFont(QFontDatabase::FixedFont))
                           .horizontalAdvance(QStringLiteral("In [888]:")) +
                       4 + 6 + 10;
    v->setContentsMargins(gutter, 4, 8, 4);
    m_rendered = new AutoHeightBrowser(this);
    m_rendered->setObjectName(QStringLiteral("markdownRendered"));
    m_rendered->setFocusPolicy(Qt::StrongFocus);
    m_rendered->viewport()->installEventFilter(this);
    m_rendered->installEventFilter(this);
    m_editor = new CellSourceEdit(false, this);
    m_editor->setObjectName(QStringLiteral("markdownEditor"));
    m_editor->setPlainText(cell.source);
    v->addWidget(m_rendered);
    v->addWidget(m_editor);
    m_editor->hide();
    render();

    connect(m_editor, &QPlainTextEdit::textChanged, this, &CellWidget::sourceChanged);
    connect(m_editor, &CellSourceEdit::focused, this, &CellWidget::activated);
    connect(m_editor, &CellSourceEdit::runAndAdvance, this, [this] {
        setEditing(false);
        Q_EMIT runAndAdvance();
    });
    connect(m_editor, &CellSourceEdit::runInPlace, this, [this] {
        setEditing(false);
        Q_EMIT runInPlace();
    });
    connect(m_editor, &CellSourceEdit::focusLost, this, [this] { setEditing(false); });
}

QString MarkdownCellWidget::source() const {
    return m_editor->toPlainText();
}

void MarkdownCellWidget::setSource(const QString& source) {
    m_editor->setPlainText(source);
    render();
}

void MarkdownCellWidget::setReadOnly(bool readOnly) {
    m_readOnly = readOnly;
    m_editor->setReadOnly(readOnly);
    if (readOnly)
        setEditing(false);
}

void MarkdownCellWidget::focusEditor() {
    if (m_readOnly) {
        m_rendered->setFocus(Qt::OtherFocusReason);
        return;
    }
    setEditing(true);
    m_editor->setFocus(Qt::OtherFocusReason);
}

bool MarkdownCellWidget::editing() const {
    return !m_editor->isHidden();
}

void MarkdownCellWidget::setEditing(bool editing) {
    if (editing && m_readOnly)
        return;
    if (editing == this->editing())
        return;
    if (!editing)
        render();
    m_rendered->setVisible(!editing);
    m_editor->setVisible(editing);
}

void MarkdownCellWidget::render() {
    const QString text = m_editor->toPlainText();
    if (text.trimmed().isEmpty()) {
        m_rendered->setHtml(QStringLiteral("<i style=\"color:%1\">%2</i>")
                                .arg(palette().color(QPalette::PlaceholderText).name(),
                                     tr("Empty markdown cell: double-click to edit")));
        return;
    }
    m_rendered->document()->setMarkdown(text);
}

bool MarkdownCellWidget::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::MouseButtonDblClick) {
        focusEditor();
        return true;
    }
    if (event->type() == QEvent::MouseButtonPress || event->type() == QEvent::FocusIn)
        Q_EMIT activated();
    if (watched == m_rendered && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            if (key->modifiers() == Qt::ShiftModifier)
                Q_EMIT runAndAdvance();
            else
                focusEditor();
            return true;
        }
    }
    return CellWidget::eventFilter(watched, event);
}

} // namespace studio::widgets
