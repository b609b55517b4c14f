#include "engine/train/training_state.h"

#include "engine/train/checkpoint_files.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <sstream>

namespace studio::train {

std::string saveTrainingState(torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                              std::int64_t step) {
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive modelArchive;
    model.save(modelArchive);
    archive.write("model", modelArchive);
    torch::serialize::OutputArchive optimizerArchive;
    optimizer.save(optimizerArchive);
    archive.write("optimizer", optimizerArchive);
    archive.write("step", torch::tensor(step, torch::kLong));
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
}

std::int64_t loadTrainingState(const std::string& payload, torch::nn::Module& model,
                               torch::optim::Optimizer& optimizer, bool channelsLast,
                               const torch::Device& device) {
    torch::serialize::InputArchive archive;
    archive.load_from(payload.data(), payload.size(), device);
    torch::serialize::InputArchive modelArchive;
    archive.read("model", modelArchive);
    model.load(modelArchive);
    torch::serialize::InputArchive optimizerArchive;
    archive.read("optimizer", optimizerArchive);
    optimizer.load(optimizerArchive);
    torch::Tensor step;
    archive.read("step", step);
    // load() replaced parameter storage: keep channels-last layouts where the model wants them.
    if (channelsLast)
        for (auto& p : model.parameters())
            if (p.dim() == 4 && !p.is_contiguous(at::MemoryFormat::ChannelsLast))
                p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
    return step.item<std::int64_t>();
}

std::string broadcastBytes(Communicator& comm, const std::string& bytes, int root) {
    torch::Tensor size =
        torch::tensor(static_cast<std::int64_t>(bytes.size()), torch::kLong).reshape({1});
    comm.broadcast(size, root);
    const std::int64_t n = size.item<std::int64_t>();
    torch::Tensor data =
        comm.rank() == root
            ? torch::from_blob(const_cast<char*>(bytes.data()), {n}, torch::kUInt8).clone()
            : torch::empty({n}, torch::kUInt8);
    if (n > 0)
        comm.broadcast(data, root);
    return std::string(reinterpret_cast<const char*>(data.data_ptr<std::uint8_t>()),
                       static_cast<std::size_t>(n));
}

void broadcastModel(Communicator& comm, torch::nn::Module& model, int root) {
    torch::NoGradGuard noGrad;
    for (auto& p : model.parameters()) {
        torch::Tensor t = p.detach();
        if (t.is_contiguous()) {
            comm.broadcast(t, root);
        } else { // channels-last weights travel as contiguous copies
            torch::Tensor c = t.contiguous();
            comm.broadcast(c, root);
            t.copy_(c);
        }
    }
    for (auto& b : model.buffers()) {
        // Gloo has no bool: masks travel as bytes.
        torch::Tensor c = b.scalar_type() == torch::kBool ? b.to(torch::kUInt8) : b.contiguous();
        comm.broadcast(c, root);
        b.copy_(c);
    }
}

// torch.save's zip format around a plain pickled dict. torch::jit::pickle_save would tag the
// dict's types with torch.jit._pickle.restore_type_tag, which torch.load's weights_only mode (the
// default since PyTorch 2.6) refuses; untagged, the file loads there and in older versions alike.
std::vector<char> pickleTensors(const c10::Dict<std::string, torch::Tensor>& dict) {
    std::vector<char> pickled;
    torch::jit::Pickler pickler(
        [&](const char* bytes, size_t n) { pickled.insert(pickled.end(), bytes, bytes + n); },
        nullptr, nullptr, nullptr, nullptr, /*tag_aggregates*/ false);
    pickler.protocol();
    pickler.pushIValue(c10::IValue(dict));
    pickler.stop();
    std::vector<char> file;
    caffe2::serialize::PyTorchStreamWriter writer([&](const void* bytes, size_t n) {
        const char* c = static_cast<const char*>(bytes);
        file.insert(file.end(), c, c + n);
        return n;
    });
    torch::jit::writeArchiveAndTensors("data", pickled.data(), pickled.size(), pickler.tensorData(),
                                       writer);
    writer.writeEndOfFile();
    return file;
}

std::vector<char> pickleStateDict(torch::nn::Module& model) {
    c10::Dict<std::string, torch::Tensor> dict;
    for (const auto& item : model.named_parameters())
        dict.insert(item.key(), item.value().detach().cpu().contiguous());
    for (const auto& item : model.named_buffers())
        dict.insert(item.key(), item.value().detach().cpu().contiguous());
    return pickleTensors(dict);
}

void saveModelForPython(torch::nn::Module& model, const std::string& path) {
    std::vector<char> bytes = pickleStateDict(model);
    writeFileAtomically(path, std::string(bytes.begin(), bytes.end()));
}

} // namespace studio::train
