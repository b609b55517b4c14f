"""A two-layer Lightning regressor trained with mlstudio's StudioLogger and
StudioDebuggerCallback: test_callbacks imports build_trainer, and a studio job runs this file.
"""

import argparse

import torch
from torch import nn
from torch.nn import functional as F

from mlstudio.integrations.lightning import StudioDebuggerCallback, StudioLogger, pl


class TinyRegressor(pl.LightningModule):
    def __init__(self, lr=0.05, hidden=8, optim=None):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(4, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self.net(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", F.mse_loss(self.net(x), y))

    def configure_optimizers(self):
        momentum = (self.hparams.optim or {}).get("momentum", 0.0)
        return torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=momentum)


def loaders():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(80, 4, generator=generator)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    train = torch.utils.data.TensorDataset(x[:64], y[:64])
    val = torch.utils.data.TensorDataset(x[64:], y[64:])
    return (
        torch.utils.data.DataLoader(train, batch_size=8),
        torch.utils.data.DataLoader(val, batch_size=8),
    )


def build_trainer(checkpoint_dir, logger, max_steps=8, extra_callbacks=()):
    """A Trainer that logs every 2 steps, validates each epoch (8 steps) and keeps a checkpoint
    every 4 steps (and last.ckpt) in checkpoint_dir."""
    checkpoints = pl.callbacks.ModelCheckpoint(
        dirpath=checkpoint_dir, every_n_train_steps=4, save_top_k=-1, save_last=True
    )
    return pl.Trainer(
        max_steps=max_steps,
        logger=logger,
        callbacks=[checkpoints, StudioDebuggerCallback(), *extra_callbacks],
        log_every_n_steps=2,
        accelerator="cpu",
        devices=1,
        enable_progress_bar=False,
        enable_model_summary=False,
    )


def main():
    import mlstudio.checkpoints

    parser = argparse.ArgumentParser()
    parser.add_argument("--max-steps", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.05)
    args, _ = parser.parse_known_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = TinyRegressor(lr=args.lr, optim={"momentum": 0.9, "nesterov": False})
    trainer = build_trainer(mlstudio.checkpoints.directory(), StudioLogger(), args.max_steps)
    train, val = loaders()
    trainer.fit(model, train, val, ckpt_path="last")


if __name__ == "__main__":
    main()
