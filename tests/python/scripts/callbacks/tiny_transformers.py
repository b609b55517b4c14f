"""A one-layer GPT-2 built from a config (no download) trained by the Hugging Face Trainer with
mlstudio's StudioCallback: test_callbacks imports build_trainer, and a studio job runs this file.

The data are counting sequences (start, start+1, ...), which the model learns within a few steps.
"""

import argparse

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments
from transformers.trainer_utils import get_last_checkpoint

from mlstudio.integrations.transformers import StudioCallback

SEQUENCE = 12


class CountingSequences(torch.utils.data.Dataset):
    def __init__(self, count, seed):
        generator = torch.Generator().manual_seed(seed)
        starts = torch.randint(0, 100 - SEQUENCE, (count, 1), generator=generator)
        self.tokens = starts + torch.arange(SEQUENCE)

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        return {"input_ids": self.tokens[i], "labels": self.tokens[i]}


def build_trainer(output_dir, callbacks, max_steps=6, learning_rate=5e-3):
    """A Trainer that logs every 2 steps, and evaluates and saves every 3."""
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=100, n_positions=16, n_embd=32, n_layer=1, n_head=2,
                        bos_token_id=0, eos_token_id=0)  # fmt: skip
    args = TrainingArguments(
        output_dir=output_dir,
        max_steps=max_steps,
        per_device_train_batch_size=8,
        per_device_eval_batch_size=8,
        learning_rate=learning_rate,
        logging_steps=2,
        eval_strategy="steps",
        eval_steps=3,
        save_steps=3,
        report_to="none",
        use_cpu=True,
        disable_tqdm=True,
        dataloader_num_workers=0,
        seed=0,
    )
    return Trainer(
        model=GPT2LMHeadModel(config),
        args=args,
        train_dataset=CountingSequences(64, seed=1),
        eval_dataset=CountingSequences(16, seed=2),
        callbacks=callbacks,
    )


def main():
    import mlstudio.checkpoints

    parser = argparse.ArgumentParser()
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--lr", type=float, default=5e-3)
    args, _ = parser.parse_known_args()
    torch.set_num_threads(1)
    output_dir = mlstudio.checkpoints.directory()
    trainer = build_trainer(output_dir, [StudioCallback()], args.max_steps, args.lr)
    trainer.train(resume_from_checkpoint=get_last_checkpoint(output_dir))


if __name__ == "__main__":
    main()
