// Kernelspecs: where Jupyter looks for them (jupyter_path("kernels") and ~/.ipython/kernels),
// what kernel.json says, and how a spec becomes a command line and an environment
// (jupyter-protocol.md §2). Reads the environment at each call; Qt-free.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace studio::jupyter {

using Json = nlohmann::json;

struct KernelSpec {
    std::string name;              // "python3" (the folder's name, lower-cased)
    std::string displayName;       // "Python 3 (ipykernel)"
    std::string language;          // "python"
    std::vector<std::string> argv; // with {connection_file} etc. still templated
    std::map<std::string, std::string> env;
    std::string interruptMode = "signal"; // or "message"
    std::filesystem::path resourceDir;    // the kernelspec folder ("" for the built-in default)
    Json metadata = Json::object();
};

// The user's Jupyter data folder: $JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else
// ~/.local/share/jupyter.
std::filesystem::path jupyterDataDir();
// The kernels folders in search order, as jupyter_client lists them: $JUPYTER_PATH entries, the
// user's data folder (and the Python user base's), the environment's ($VIRTUAL_ENV or
// $CONDA_PREFIX; before the user's when JUPYTER_PREFER_ENV_PATH says so, or by default inside a
// virtualenv), /usr/local/share/jupyter, /usr/share/jupyter, then $IPYTHONDIR or ~/.ipython.
// Each entry ends in "kernels"; folders that do not exist are listed too.
std::vector<std::filesystem::path> kernelSearchPath();

// Reads resourceDir/kernel.json; the spec's name is the folder's name, lower-cased. Throws
// std::runtime_error naming the file and the field that is wrong.
KernelSpec loadKernelSpec(const std::filesystem::path& resourceDir);
// Every kernelspec on the search path; the first folder with a given (lower-cased) name wins.
// The built-in python3 spec is added when none is installed, as jupyter_client does. Specs that
// cannot be read are left out and described in problems (when given).
std::vector<KernelSpec> findKernelSpecs(std::vector<std::string>* problems = nullptr);
std::optional<KernelSpec> findKernelSpec(const std::string& name);
// python3 from the search path; when none is installed as a kernelspec, the ipykernel default
// spec built in: {"/usr/bin/python3","-m","ipykernel_launcher","-f","{connection_file}"}.
KernelSpec defaultKernelSpec();
// The built-in ipykernel spec (what defaultKernelSpec() falls back to).
KernelSpec builtinPythonSpec();

// The interpreter that a bare "python" / "python3" in a kernelspec's argv stands for: Debian's
// /usr/bin/python3 (where python3-ipykernel lives) when it exists, else python3 on PATH.
std::filesystem::path defaultPythonInterpreter();

// argv with {connection_file} (made absolute), {resource_dir} and {prefix} (the interpreter's
// prefix) filled, unknown {names} left as written, and a bare python, python3 or python3.X in
// argv[0] swapped for an absolute interpreter, as jupyter_client's format_kernel_cmd does.
std::vector<std::string> formatKernelArgv(const KernelSpec& spec,
                                          const std::filesystem::path& connectionFile,
                                          const std::filesystem::path& python = {});

// Python's string.Template.safe_substitute: $name and ${name} from vars, $$ is a dollar, and
// a name vars lacks stays as written.
std::string expandVariables(const std::string& text,
                            const std::map<std::string, std::string>& vars);
// The kernel's environment: base, then extra over it, then the spec's env (its ${VAR}
// expanded against the first two) over both, as jupyter_client's launcher merges them.
std::map<std::string, std::string>
kernelEnvironment(const KernelSpec& spec, const std::map<std::string, std::string>& extra,
                  std::map<std::string, std::string> base);

} // namespace studio::jupyter
