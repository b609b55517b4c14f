// Settings (File → Settings…, Ctrl+,): what studio.ini holds besides the layout — theme,
// notifications per kind, the cluster new jobs go to, the workspace folder, the charts'
// smoothing and how often running jobs' views refresh. The dialog edits a StudioSettings value;
// the window saves and applies it on OK.
#pragma once

#include "models/shell/studio_settings.h"

#include <QDialog>

#include <array>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;

namespace studio::widgets {

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // clusters: the names a job can go to ("local" is added first).
    SettingsDialog(const models::StudioSettings& settings, const QStringList& clusters,
                   const QString& home, QWidget* parent = nullptr);
    models::StudioSettings settings() const;

private:
    void addNotificationRows(QFormLayout* form, const models::StudioSettings& s);
    void addWorkspaceRow(QFormLayout* form, const QString& folder);

    models::StudioSettings m_base;
    QString m_home;
    QComboBox* m_theme;
    std::array<QCheckBox*, models::kNoticeKinds> m_notify{};
    QComboBox* m_cluster;
    QLineEdit* m_workspace;
    QDoubleSpinBox* m_smoothing;
    QDoubleSpinBox* m_refresh;
};

} // namespace studio::widgets
