#include "widgets/notebook/code_assist.h"

#include "models/notebook/notebook_kernel.h"
#include "widgets/notebook/cell_source_edit.h"

#include <QCoreApplication>
#include <QKeyEvent>
#include <QListWidget>
#include <QToolTip>

namespace studio::widgets {

namespace {

// A tooltip's worth of a docstring.
QString shortened(const QString& text) {
    QStringList lines = text.split(QLatin1Char('\n'));
    if (lines.size() > 30) {
        lines = lines.mid(0, 30);
        lines.append(QStringLiteral("…"));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

CodeAssist::CodeAssist(QWidget* owner)
    : QObject(owner)
    , m_popup(new QListWidget(owner)) {
    m_popup->setObjectName(QStringLiteral("completionPopup"));
    m_popup->setWindowFlags(Qt::Popup);
    m_popup->setFocusPolicy(Qt::NoFocus);
    m_popup->setUniformItemSizes(true);
    m_popup->installEventFilter(this);
    connect(m_popup, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { insert(item->text()); });
}

void CodeAssist::setKernel(models::NotebookKernel* kernel) {
    if (m_kernel)
        disconnect(m_kernel, nullptr, this, nullptr);
    m_kernel = kernel;
    if (!kernel)
        return;
    connect(kernel, &models::NotebookKernel::completed, this, &CodeAssist::onCompleted);
    connect(kernel, &models::NotebookKernel::inspected, this, &CodeAssist::onInspected);
}

void CodeAssist::complete(CellSourceEdit* editor) {
    if (!m_kernel || !editor)
        return;
    m_editor = editor;
    m_source = editor->toPlainText();
    m_completion = m_kernel->complete(m_source, editor->textCursor().position());
}

void CodeAssist::inspect(CellSourceEdit* editor) {
    if (!m_kernel || !editor)
        return;
    m_editor = editor;
    m_inspection = m_kernel->inspect(editor->toPlainText(), editor->textCursor().position());
}

void CodeAssist::onCompleted(int id, const QStringList& matches, int start, int end) {
    // A reply to an older request, or to code edited since, would insert at the wrong place.
    if (id != m_completion || !m_editor || m_editor->toPlainText() != m_source || matches.isEmpty())
        return;
    m_start = start;
    m_end = end;
    if (matches.size() == 1) {
        insert(matches.front());
        return;
    }
    m_popup->clear();
    m_popup->addItems(matches);
    m_popup->setCurrentRow(0);
    const QRect cursor = m_editor->cursorRect();
    const int rows = std::min(10, static_cast<int>(matches.size()));
    m_popup->resize(std::max(220, m_popup->sizeHintForColumn(0) + 30),
                    rows * m_popup->sizeHintForRow(0) + 6);
    m_popup->move(m_editor->viewport()->mapToGlobal(cursor.bottomLeft()));
    m_popup->show();
}

void CodeAssist::insert(const QString& match) {
    m_popup->hide();
    if (!m_editor)
        return;
    QTextCursor c = m_editor->textCursor();
    c.setPosition(m_start);
    c.setPosition(m_end, QTextCursor::KeepAnchor);
    c.insertText(match);
    m_editor->setTextCursor(c);
    m_editor->setFocus(Qt::PopupFocusReason);
}

void CodeAssist::onInspected(int id, bool found, const QString& text) {
    if (id != m_inspection || !m_editor || !found)
        return;
    m_documentation = text;
    const QRect cursor = m_editor->cursorRect();
    QToolTip::showText(m_editor->viewport()->mapToGlobal(cursor.bottomLeft()), shortened(text),
                       m_editor);
}

bool CodeAssist::eventFilter(QObject* watched, QEvent* event) {
    if (watched != m_popup || event->type() != QEvent::KeyPress)
        return QObject::eventFilter(watched, event);
    auto* key = static_cast<QKeyEvent*>(event);
    switch (key->key()) {
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Tab:
        if (QListWidgetItem* item = m_popup->currentItem())
            insert(item->text());
        return true;
    case Qt::Key_Escape:
        m_popup->hide();
        return true;
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
        return false; // the list moves its selection
    default:
        // Typing goes on in the cell; the popup's matches are stale then.
        m_popup->hide();
        if (m_editor)
            QCoreApplication::sendEvent(m_editor, event);
        return true;
    }
}

} // namespace studio::widgets
