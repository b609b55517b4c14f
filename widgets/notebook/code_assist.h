// Completion and documentation in a notebook's code cells, from its kernel: Tab sends a
// complete_request for the code and cursor of the cell being edited and shows the matches in a
// popup under the cursor (one match is inserted at once); Shift+Tab sends an inspect_request
// and shows the docstring in a tooltip. Only the newest request's reply is used. GUI thread only.
#pragma once

#include <QObject>
#include <QPointer>
#include <QStringList>

class QListWidget;

namespace studio::models {
class NotebookKernel;
} // namespace studio::models

namespace studio::widgets {

class CellSourceEdit;

class CodeAssist : public QObject {
    Q_OBJECT
public:
    explicit CodeAssist(QWidget* owner);

    void setKernel(models::NotebookKernel* kernel);
    void complete(CellSourceEdit* editor);
    void inspect(CellSourceEdit* editor);

    // The popup (visible while there are matches to pick from) and the last docstring shown.
    QListWidget* popup() const { return m_popup; }
    const QString& lastDocumentation() const { return m_documentation; }

private:
    void onCompleted(int id, const QStringList& matches, int start, int end);
    void onInspected(int id, bool found, const QString& text);
    void insert(const QString& match);
    bool eventFilter(QObject* watched, QEvent* event) override;

    QPointer<models::NotebookKernel> m_kernel;
    QPointer<CellSourceEdit> m_editor;
    QListWidget* m_popup;
    int m_completion = 0;
    int m_inspection = 0;
    int m_start = 0;
    int m_end = 0;
    QString m_source; // the code the reply's positions are in
    QString m_documentation;
};

} // namespace studio::widgets
