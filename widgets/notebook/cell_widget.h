// The common frame of a notebook cell in the editor: the cell's id, a selection mark at the left
// edge, and the signals every cell kind sends to the editor (its source changed, the user asked to
// run it). CodeCellWidget and MarkdownCellWidget fill it.
#pragma once

#include "models/notebook/notebook_document.h"

#include <QFrame>

namespace studio::widgets {

class CellWidget : public QFrame {
    Q_OBJECT
public:
    CellWidget(QString cellId, QWidget* parent = nullptr);

    const QString& cellId() const { return m_cellId; }
    virtual models::CellType type() const = 0;
    virtual QString source() const = 0;
    virtual void setSource(const QString& source) = 0;
    virtual void setReadOnly(bool readOnly) = 0;
    // Puts the keyboard in the cell (a markdown cell shows its editor).
    virtual void focusEditor() = 0;

    void setSelected(bool selected);
    bool isSelected() const { return m_selected; }

Q_SIGNALS:
    void sourceChanged();
    void runAndAdvance(); // Shift+Enter
    void runInPlace();    // Ctrl+Enter
    void activated();     // the user clicked or typed in the cell

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QString m_cellId;
    bool m_selected = false;
};

} // namespace studio::widgets
