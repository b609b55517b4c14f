// The command palette (Ctrl+Shift+P) and quick open (Ctrl+P): a box at the top of the window
// with a line to type in and the best matches below, each with its kind, detail and shortcut,
// the typed characters in bold. Up/Down/PageUp/PageDown move, Enter opens, Escape closes.
// The window fills its index before each opening. GUI thread only.
#pragma once

#include "models/shell/palette_model.h"

#include <QFrame>

class QLabel;
class QLineEdit;
class QListView;

namespace studio::widgets {

class CommandPalette : public QFrame {
    Q_OBJECT
public:
    explicit CommandPalette(QWidget* window);

    models::PaletteModel* model() const { return m_model; }
    QLineEdit* input() const { return m_input; }
    QListView* list() const { return m_list; }
    // Shows the palette over the window's top centre, in the given mode, with an empty query.
    void popup(const models::PaletteMode& mode, const QString& placeholder);

Q_SIGNALS:
    void activated(const studio::models::PaletteEntry& entry);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void place();
    void activate(int row);
    void updateCount();

    models::PaletteModel* m_model;
    QLineEdit* m_input;
    QListView* m_list;
    QLabel* m_count;
};

} // namespace studio::widgets
