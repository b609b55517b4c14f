#include "app/studio_app.h"

#include "app/notebook/jupyter_kernel.h"
#include "app/notebook/kernel_environment.h"
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/control/tuner.h"
#include "engine/store/store_reader.h"
#include "widgets/common/theme.h"
#include "widgets/shell/main_window.h"

#include <QApplication>
#include <QMessageBox>
#include <QSettings>

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace studio::app {

bool displayAvailable() {
    for (const char* var : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        if (const char* v = std::getenv(var); v && *v)
            return true;
    return false;
}

int runStudio(int argc, char** argv, const std::string& insightsJob, const std::string& job) {
    if (!displayAvailable()) {
        std::fprintf(stderr, "mlstudio: no display (DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM "
                             "is needed for the studio window); the command line works without "
                             "one: mlstudio --help\n");
        return 2;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("ML Studio"));
    QApplication::setOrganizationName(QStringLiteral("mlstudio"));
    QApplication::setApplicationVersion(QStringLiteral(STUDIO_VERSION));
    try {
        // Jobs whose studio window closed while they ran ("Keep running", or a crash) are
        // followed again from their journals, at once and whenever another studio process
        // (a killed `mlstudio run`, say) leaves one behind.
        control::ControllerOptions options;
        options.takeOver = true;
        options.takeOverIntervalSeconds = 1; // a dead owner's job is settled or followed at once
        control::Controller controller(options);
        // One tuner per controller: the notebooks' tuning jobs; those a closed studio left
        // running go on here.
        control::Tuner tuner(controller);
        tuner.resume();
        const QString ini = QString::fromStdString(control::settingsPath(controller.home()));
        widgets::applyTheme(
            app,
            static_cast<widgets::ThemeChoice>(
                QSettings(ini, QSettings::IniFormat).value(QStringLiteral("theme"), 0).toInt()));
        // The jobs as the command line resolves them: exact name, unique prefix, or newest run.
        std::string insights, opened;
        if (!insightsJob.empty() || !job.empty()) {
            try {
                store::StoreReader reader(control::databasePath(controller.home()));
                if (!insightsJob.empty())
                    insights = reader.resolveJob(insightsJob).name;
                if (!job.empty())
                    opened = reader.resolveJob(job).name;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "mlstudio: %s\n", e.what());
                return 1;
            }
        }
        widgets::MainWindow window(controller);
        window.setTuner(&tuner); // the Tuning activity's Stop, launches and live progress
        // Each notebook runs on a Jupyter kernel process of its own, in the notebook's folder,
        // with the `mlstudio` package on its path and this studio's store as its home.
        const QString home = QString::fromStdString(controller.home());
        window.setKernelFactory([home](const QString& workingDir, const QString& kernelName,
                                       QObject* parent) -> models::NotebookKernel* {
            notebook::KernelLaunch launch;
            launch.kernelName = notebook::installedKernel(kernelName) ? kernelName : QString();
            launch.workingDir = workingDir;
            launch.environment = notebook::studioKernelEnvironment(home);
            return new notebook::JupyterKernel(std::move(launch), parent);
        });
        window.show();
        if (!opened.empty())
            window.openJob(QString::fromStdString(opened));
        if (!insights.empty())
            window.openInsights(QString::fromStdString(insights));
        return QApplication::exec();
    } catch (const std::exception& e) {
        QMessageBox::critical(nullptr, QStringLiteral("ML Studio"), QString::fromUtf8(e.what()));
        std::fprintf(stderr, "mlstudio: %s\n", e.what());
        return 1;
    }
}

} // namespace studio::app
