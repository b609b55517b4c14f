// Colours a unified diff in a text view as diff tools do: added lines green, removed lines red,
// hunk headers and file names muted; readable in the light and the dark palette.
#pragma once

#include <QSyntaxHighlighter>

namespace studio::widgets {

class DiffHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit DiffHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;
};

} // namespace studio::widgets
