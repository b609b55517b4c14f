// A code cell in the notebook editor: an `In [n]:` gutter (`In [*]:` while it waits or runs), a
// monospace editor as tall as its source and the cell's outputs below. Raw cells use it without
// gutter or outputs.
#pragma once

#include "widgets/notebook/cell_widget.h"

#include <optional>

class QLabel;

namespace studio::models {
class DataService;
} // namespace studio::models

namespace studio::widgets {

class CellSourceEdit;
class InputPrompt;
class OutputArea;

class CodeCellWidget : public CellWidget {
    Q_OBJECT
public:
    CodeCellWidget(const models::NotebookCell& cell, models::DataService* service,
                   QWidget* parent = nullptr);

    models::CellType type() const override {
        return m_raw ? models::CellType::Raw : models::CellType::Code;
    }
    QString source() const override;
    void setSource(const QString& source) override;
    void setReadOnly(bool readOnly) override;
    void focusEditor() override;

    // Queued or running: `In [*]:`.
    void setRunning(bool running);
    bool running() const { return m_running; }
    void setExecutionCount(std::optional<int> count);
    QString gutterText() const;
    OutputArea* outputs() const { return m_outputs; }
    // The entry for Python's input() under the outputs (one at a time); closeInput() removes it.
    InputPrompt* showInput(const QString& prompt, bool password);
    void closeInput();
    InputPrompt* inputPrompt() const { return m_input; }
    CellSourceEdit* editor() const { return m_editor; }

private:
    void updateGutter();

    bool m_raw;
    bool m_running = false;
    std::optional<int> m_count;
    QLabel* m_gutter;
    CellSourceEdit* m_editor;
    OutputArea* m_outputs;
    InputPrompt* m_input = nullptr;
};

} // namespace studio::widgets
