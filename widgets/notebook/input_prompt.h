// The line a cell shows while its code waits in Python's input() (the kernel's input_request):
// the prompt and an entry (hidden characters for getpass). Enter answers. GUI thread only.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;

namespace studio::widgets {

class InputPrompt : public QWidget {
    Q_OBJECT
public:
    InputPrompt(const QString& prompt, bool password, QWidget* parent = nullptr);
    QString prompt() const;
    QLineEdit* entry() const { return m_entry; }

Q_SIGNALS:
    void submitted(const QString& value);

private:
    QLabel* m_prompt;
    QLineEdit* m_entry;
};

} // namespace studio::widgets
