"""Train the card detector on rendered scenes; resumable from checkpoints.

    python -m cardtally.models.detector.train --out runs/detector --steps 6000 --seed 1

Every sample is rendered from ``seed`` and its index, so a run is reproducible (up to
floating-point non-determinism of multi-threaded kernels) and resumes exactly where it stopped.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import torch

from ..synth.speed import tune_malloc
from .average import load_weights
from .data import (
    CARD_PX,
    IMPULSE_SHARE,
    KNIT_SHARE,
    SMALL_CARD_SHARE,
    STRETCH_SHARE,
    RenderedCrops,
    TrainingMix,
)
from .ema import WeightAverage
from .loss import detector_loss
from .net import CardNet


def _lr_at(step: int, steps: int, base_lr: float, warmup: int = 200, constant: bool = False) -> float:
    if step < warmup:
        return base_lr * (step + 1) / warmup
    if constant:
        return base_lr
    progress = (step - warmup) / max(1, steps - warmup)
    return base_lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def train(args: argparse.Namespace) -> None:
    """Run (or resume) training until ``args.steps`` steps or ``args.minutes`` minutes."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / "last.pt"
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    model = CardNet(width=args.width, context_blocks=args.context_blocks).to(device)
    if args.freeze_encoder:
        for module in _encoder(model):
            module.requires_grad_(False)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=1e-4)
    step = 0
    average = None
    if ckpt_path.exists():
        state = torch.load(ckpt_path, map_location=device)
        _check_same_trainable(state, len(trainable), args.freeze_encoder, ckpt_path)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        step = state["step"]
        if args.ema and "ema" in state:
            average = WeightAverage(model, args.ema, state["ema"], state["ema_updates"])
        print(f"resumed at step {step}", flush=True)
    elif args.init_from:
        # Weights only (e.g. the shipped model's): a fresh optimiser and schedule from step 0.
        _load_matching(model, load_weights(args.init_from, device))
        print(f"initialised from {args.init_from}", flush=True)
    if args.ema and average is None:
        average = WeightAverage(model, args.ema)
    # Each rendered scene gives two crops.
    mix = TrainingMix(args.knit_share, args.stretch_share, args.centre_in_own_part, args.impulse_share,
                      tuple(args.card_px), args.small_card_share, args.small_card_strip_frac,
                      between_edges=args.between_edge_weight != 1.0)
    data = RenderedCrops(args.seed, step * args.batch // 2, args.crop, mix)
    loader = torch.utils.data.DataLoader(
        data,
        batch_size=args.batch,
        num_workers=args.workers,
        prefetch_factor=4 if args.workers else None,
        worker_init_fn=_worker_init,
        pin_memory=device.type == "cuda",
    )
    model.train()
    if args.freeze_encoder:
        # A frozen encoder keeps its batch-norm statistics too.
        for module in _encoder(model):
            module.eval()
    started = time.time()
    log = (out / "log.jsonl").open("a")
    running: dict[str, float] = {}
    print(f"training on {device}", flush=True)
    for images, maps in loader:
        if step >= args.steps or (time.time() - started) > args.minutes * 60:
            break
        images = images.to(device, non_blocking=True)
        maps = {key: value.to(device, non_blocking=True) for key, value in maps.items()}
        for group in optimiser.param_groups:
            group["lr"] = _lr_at(step, args.steps, args.lr, constant=args.constant_lr)
        loss, parts = detector_loss(model(images), maps, args.centre_weight,
                                    args.between_edge_weight)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimiser.step()
        if average is not None:
            average.update(model)
        step += 1
        for key, value in parts.items():
            running[key] = 0.98 * running.get(key, value) + 0.02 * value
        if step % 25 == 0:
            record = {"step": step, "elapsed_s": round(time.time() - started, 1), **running}
            log.write(json.dumps(record) + "\n")
            log.flush()
            print(record, flush=True)
        if step % args.save_every == 0:
            _save(model, optimiser, step, ckpt_path, average)
    _save(model, optimiser, step, ckpt_path, average)
    print(f"stopped at step {step}", flush=True)


def _check_same_trainable(state: dict, n_trainable: int, freeze_encoder: bool, path: Path) -> None:
    """Refuse to resume a checkpoint whose optimiser trained another set of layers: its state
    cannot be loaded, and a run that changed its recipe halfway could not be reproduced."""
    saved = sum(len(group["params"]) for group in state["optimiser"]["param_groups"])
    if saved != n_trainable:
        saved_as, asked = ("without", "with") if freeze_encoder else ("with", "without")
        raise SystemExit(f"{path} was saved {saved_as} --freeze-encoder and cannot be resumed "
                         f"{asked} it; resume it as it was started, or start a new --out "
                         f"with --init-from {path}")


def _encoder(model: CardNet) -> list[torch.nn.Module]:
    """The layers from the image down to 1/32 (``--freeze-encoder`` keeps them as loaded)."""
    return [model.stem, model.down2, model.down3, model.down4, model.down5, model.context]


def _load_matching(model: CardNet, weights: dict[str, torch.Tensor]) -> None:
    """Load weights saved before heads were added: a head layer keeps its old rows."""
    own = model.state_dict()
    for name, tensor in weights.items():
        if own[name].shape == tensor.shape:
            own[name] = tensor
        else:
            own[name][: tensor.shape[0]] = tensor
    model.load_state_dict(own)


def _worker_init(_: int) -> None:
    # The renderer frees and re-allocates multi-megabyte buffers per scene; keep them in the heap.
    tune_malloc()


def _save(model: CardNet, optimiser: torch.optim.Optimizer, step: int, path: Path,
          average: WeightAverage | None = None) -> None:
    tmp = path.with_suffix(".tmp")
    state = {"model": model.state_dict(), "optimiser": optimiser.state_dict(), "step": step,
             "context_blocks": model.context_blocks}
    if average is not None:
        state |= {"ema": average.state, "ema_updates": average.updates}
    torch.save(state, tmp)
    tmp.replace(path)


def main() -> None:
    """Train the detector from the command line's flags."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="runs/detector")
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--minutes", type=float, default=85.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--crop", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--context-blocks", type=int, default=0,
                        help="residual blocks added at 1/16 and at 1/32 (each starts as the identity)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1,
                        help="render processes (the renderer, not the network, bounds a GPU run)")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda where available)")
    parser.add_argument("--save-every", type=int, default=100)
    parser.add_argument("--centre-weight", type=float, default=1.0,
                        help="weight of the centre-peak loss in the total (edges 2, foreground 1)")
    parser.add_argument("--init-from", default=None,
                        help="model weights to start from: a .pt state dict or a training "
                             "checkpoint (its weights; a fresh optimiser and schedule)")
    parser.add_argument("--ema", type=float, default=0.0, metavar="DECAY",
                        help="also keep an exponential moving average of the weights with this "
                             "decay, e.g. 0.999 (0: off); export it with export.py --ema")
    parser.add_argument("--freeze-encoder", action="store_true",
                        help="train only the decoder and heads; the encoder (weights and "
                             "batch-norm statistics) stays as loaded")
    parser.add_argument("--constant-lr", action="store_true",
                        help="keep the rate at --lr after the warm-up instead of a cosine decay "
                             "over --steps (an open-ended run, read through --ema)")
    parser.add_argument("--knit-share", type=float, default=KNIT_SHARE,
                        help="share of renders on a knit blanket (run 8: 0)")
    parser.add_argument("--stretch-share", type=float, default=STRETCH_SHARE,
                        help="share of renders stretched along one axis (run 8: 0)")
    parser.add_argument("--centre-in-own-part", action="store_true",
                        help="keep each centre peak's Gaussian inside its card's visible part")
    parser.add_argument("--impulse-share", type=float, nargs="?", const=IMPULSE_SHARE, default=0.0,
                        help=f"share of renders with black and white speckle (bare flag: {IMPULSE_SHARE})")
    parser.add_argument("--card-px", type=float, nargs=2, default=CARD_PX, metavar=("MIN", "MAX"),
                        help="card long sides (px) of the crop-sized views (default: %(default)s)")
    parser.add_argument("--small-card-share", type=float, default=SMALL_CARD_SHARE,
                        help="share of crop-sized views with survey-sized cards, 16-64 px "
                             "(default: %(default)s)")
    parser.add_argument("--small-card-strip-frac", type=float, default=0.0, metavar="FRAC",
                        help="survey-sized views keep strips down to this fraction of a card's "
                             "long side instead of 8 px (0: off, as every run up to 27)")
    parser.add_argument("--between-edge-weight", type=float, default=1.0, metavar="W",
                        help="weigh the edge loss where two cards meet W times (1: off, as "
                             "every run up to 28)")
    train(parser.parse_args())


if __name__ == "__main__":
    main()
