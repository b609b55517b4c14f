// A markdown cell in the notebook editor: rendered (QTextDocument's markdown) until double-clicked
// or Enter is pressed on it, then a plain editor until Shift+Enter or the focus leaves it.
#pragma once

#include "widgets/notebook/cell_widget.h"

namespace studio::widgets {

class AutoHeightBrowser;
class CellSourceEdit;

class MarkdownCellWidget : public CellWidget {
    Q_OBJECT
public:
    explicit MarkdownCellWidget(const models::NotebookCell& cell, QWidget* parent = nullptr);

    models::CellType type() const override { return models::CellType::Markdown; }
    QString source() const override;
    void setSource(const QString& source) override;
    void setReadOnly(bool readOnly) override;
    void focusEditor() override;

    bool editing() const;
    void setEditing(bool editing);
    AutoHeightBrowser* rendered() const { return m_rendered; }
    CellSourceEdit* editor() const { return m_editor; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void render();

    bool m_readOnly = false;
    AutoHeightBrowser* m_rendered;
    CellSourceEdit* m_editor;
};

} // namespace studio::widgets
