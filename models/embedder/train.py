"""Train the back embedder on procedurally generated designs (never on real backs or photos).

Every step draws fresh designs (``batches.make_batch``): 32 random backs and two Ligretto-style
families of 4 (same base, different symbol; ``--families`` sets how many), 4 views each, plus 32
views of face-up fronts. Loss: supervised contrastive (multi-positive InfoNCE, one class per
design) on the back embeddings + binary cross-entropy of the face-up head. With
``--blind-siblings`` the pairs of sibling views where one hides its symbol (``batches``) are left
out of the contrastive loss: they look the same, so no label can say they differ. With
``--symbol-weight`` a head on the pooled features, left out of the export, names the symbol of
every sibling view that shows it (cross-entropy over ``synth.symbols.SYMBOL_NAMES``). Data for step ``s``
is drawn from ``default_rng([seed, s])``, so a run is reproducible and resumes exactly after an
interruption.

    python -m cardtally.models.embedder.train --out runs/embedder --steps 1400 --max-minutes 48
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

from ..synth.symbols import SYMBOL_NAMES
from .batches import (
    FAMILIES,
    FAMILY_SIZE,
    VIEWS_PER_DESIGN,
    family_validation_set,
    make_batch,
    validation_set,
)
from .net import POOLED_DIM, BackEmbedder

TEMPERATURE = 0.1
#: With ``--bank``: detector-cut crops of this many decks, this many views each, per batch.
BANK_CLASSES = 8
BANK_VIEWS = 4
#: With ``--bank``: detector-cut crops of face-up cards per batch (when the bank has them).
BANK_FACE_UP = 16
#: The batch's sibling fields (``batches.make_batch``) for views of a design without siblings.
NO_SIBLING = {"family": -1, "shows_symbol": True, "symbol": -1}


class _Batches(IterableDataset):
    def __init__(self, seed: int, first_step: int, last_step: int, spill_share: float = 0.0,
                 families: int = FAMILIES, calibration_views: int = 0) -> None:
        self.seed, self.first_step, self.last_step = seed, first_step, last_step
        self.spill_share, self.families = spill_share, families
        self.calibration_views = calibration_views

    def __iter__(self):
        # Each DataLoader worker gets its own copy of this object: take every n-th step only,
        # so that the workers together yield each step once and in order.
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        for step in range(self.first_step + worker, self.last_step, workers):
            batch = make_batch(self.seed, step, self.spill_share, self.families,
                               self.calibration_views)
            yield {k: torch.from_numpy(v) for k, v in batch.items()}


class DetectorBank:
    """Crops the shipped detector cut from rendered photos, grouped by deck (``detector_bank``)."""

    def __init__(self, crops: np.ndarray, labels: np.ndarray,
                 face_up: np.ndarray | None = None) -> None:
        self.crops = crops
        face_up = np.zeros(len(labels), bool) if face_up is None else face_up.astype(bool)
        self.face_up_rows = np.flatnonzero(face_up)
        backs = np.flatnonzero(~face_up)
        order = backs[np.argsort(labels[backs], kind="stable")]
        _, starts, counts = np.unique(labels[order], return_index=True, return_counts=True)
        # Only decks with enough crops give a batch several views of one deck.
        enough = counts >= BANK_VIEWS
        self.members = [order[a : a + n] for a, n in zip(starts[enough], counts[enough], strict=True)]

    @classmethod
    def load(cls, paths: list[Path]) -> DetectorBank:
        """One bank from the ``.npz`` files that ``detector_bank`` wrote."""
        parts = [np.load(path) for path in paths]
        # Labels are unique per scene index; banks made with different --first never collide.
        # Banks made before face-up crops were kept have no "face_up" array.
        return cls(np.concatenate([p["crops"] for p in parts]),
                   np.concatenate([p["labels"] for p in parts]),
                   np.concatenate([p["face_up"] if "face_up" in p else np.zeros(len(p["labels"]), bool)
                                   for p in parts]))

    def extend(self, batch: dict[str, torch.Tensor], rng: np.random.Generator,
               n_classes: int, n_face_up: int = BANK_FACE_UP) -> dict[str, torch.Tensor]:
        """``batch`` with ``n_classes`` bank decks of BANK_VIEWS crops each and ``n_face_up``
        face-up crops (label -1) appended."""
        picked = rng.choice(len(self.members), size=min(n_classes, len(self.members)), replace=False)
        first_label = int(batch["labels"].max()) + 1
        rows, labels = [], []
        for k, c in enumerate(picked):
            rows.append(np.sort(rng.choice(self.members[c], size=BANK_VIEWS, replace=False)))
            labels += [first_label + k] * BANK_VIEWS
        n_face_up = min(n_face_up, len(self.face_up_rows))
        rows.append(np.sort(rng.choice(self.face_up_rows, size=n_face_up, replace=False)))
        face_up = [0.0] * len(labels) + [1.0] * n_face_up
        labels += [-1] * n_face_up
        crops = self.crops[np.concatenate(rows).astype(np.int64)].astype(np.float32)
        out = {
            "crops": torch.cat([batch["crops"], torch.from_numpy(crops)]),
            "labels": torch.cat([batch["labels"], torch.tensor(labels, dtype=torch.int64)]),
            "face_up": torch.cat([batch["face_up"], torch.tensor(face_up)]),
        }
        # Bank decks have no siblings in the batch, and their crops count as telling.
        for key, value in NO_SIBLING.items():
            if key in batch:
                out[key] = torch.cat([batch[key], torch.full((len(labels),), value)])
        return out


def supcon_loss(embedding: torch.Tensor, labels: torch.Tensor, temperature: float,
                ignored: torch.Tensor | None = None) -> torch.Tensor:
    """Supervised contrastive loss (Khosla et al. 2020) over unit embeddings; ``ignored`` pairs
    (a boolean matrix) are neither pulled together nor pushed apart."""
    logits = embedding @ embedding.T / temperature
    n = len(labels)
    self_mask = torch.eye(n, dtype=torch.bool, device=embedding.device)
    logits = logits.masked_fill(self_mask if ignored is None else self_mask | ignored, -1e9)
    positives = (labels[:, None] == labels[None, :]) & ~self_mask
    if ignored is not None:
        positives &= ~ignored
    log_prob = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    per_anchor = -(log_prob * positives).sum(1) / positives.sum(1).clamp(min=1)
    return per_anchor.mean()


def blind_sibling_pairs(labels: torch.Tensor, family: torch.Tensor,
                        shows_symbol: torch.Tensor) -> torch.Tensor:
    """Pairs of views of two siblings where one view hides its symbol: nothing in the pixels
    tells them apart, so pushing them apart would only teach the network noise."""
    siblings = (family[:, None] == family[None, :]) & (family[:, None] >= 0)
    siblings &= labels[:, None] != labels[None, :]
    return siblings & ~(shows_symbol[:, None] & shows_symbol[None, :])


def _lr(step: int, total: int, peak: float, warmup: int = 60) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return peak * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0))))


@torch.no_grad()
def _other_view_similarity(model: BackEmbedder, crops: np.ndarray) -> np.ndarray:
    """Cosine similarity of every view to every other (-2 to itself), in eval mode."""
    model.eval()
    with torch.no_grad():
        emb, _ = model(torch.from_numpy(crops).to(next(model.parameters()).device))
    model.train()
    sim = (emb @ emb.T).cpu().numpy()
    np.fill_diagonal(sim, -2)
    return sim


def sibling_accuracy(model: BackEmbedder, crops: np.ndarray, labels: np.ndarray) -> float:
    """Leave-one-out nearest-neighbour accuracy among each family's own views (chance is about
    1 in FAMILY_SIZE)."""
    sim = _other_view_similarity(model, crops)
    family = labels // FAMILY_SIZE
    sim[family[:, None] != family[None, :]] = -2
    return float(np.mean(labels[sim.argmax(1)] == labels))


def evaluate(model: BackEmbedder, crops: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """Leave-one-out nearest-neighbour accuracy and same/different similarity statistics."""
    sim = _other_view_similarity(model, crops)
    nn_acc = float(np.mean(labels[sim.argmax(1)] == labels))
    same = labels[:, None] == labels[None, :]
    np.fill_diagonal(same, False)
    diff = labels[:, None] != labels[None, :]
    return {
        "nn_acc": nn_acc,
        "same_p10": float(np.percentile(sim[same], 10)),
        "diff_p99": float(np.percentile(sim[diff], 99)),
    }


def main() -> None:
    """Train the embedder from the command line's flags."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/embedder"))
    parser.add_argument("--steps", type=int, default=1400)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--max-minutes", type=float, default=48.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda where available)")
    parser.add_argument("--init-from", type=Path, default=None,
                        help="start from this checkpoint's weights (new optimiser and schedule)")
    parser.add_argument("--replay", type=int, default=0,
                        help="extra updates per fresh batch on recent batches (turned 180 deg)")
    parser.add_argument("--warmup", type=int, default=60)
    parser.add_argument("--bank", type=Path, nargs="*", default=[],
                        help="detector-crop banks (detector_bank.py) mixed into every batch")
    parser.add_argument("--bank-classes", type=int, default=BANK_CLASSES,
                        help="bank decks per batch (with BANK_VIEWS crops each)")
    parser.add_argument("--bank-face-up", type=int, default=BANK_FACE_UP,
                        help="bank crops of face-up cards per batch")
    parser.add_argument("--spill-share", type=float, default=0.0,
                        help="share of views whose outline spills over one side (views.py)")
    parser.add_argument("--families", type=int, default=FAMILIES,
                        help="Ligretto-style families of 4 siblings among each batch's designs")
    parser.add_argument("--blind-siblings", action="store_true",
                        help="leave alone pairs of sibling views where one hides its symbol")
    parser.add_argument("--symbol-weight", type=float, default=0.0,
                        help="weight of a training-only head naming the symbol of sibling views "
                             "that show it (0: no head)")
    parser.add_argument("--calibration-views", type=int, default=0,
                        choices=range(VIEWS_PER_DESIGN + 1), metavar=f"0-{VIEWS_PER_DESIGN}",
                        help="views of each back design seen as a calibration photo shows it: "
                             "large, sharp and uncovered (batches.make_batch)")
    args = parser.parse_args()

    torch.set_num_threads(1)
    # One render per core: workers that each spread their warps over every core only thrash.
    # (Set here, before the loader forks; a forked worker that sets it can deadlock.)
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt_path = args.out / "ckpt.pt"
    log = (args.out / "train.log").open("a")

    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    model = BackEmbedder().to(device)
    # Naming the symbol teaches the trunk its shape; the export keeps only the embedder.
    symbol_head = (nn.Linear(POOLED_DIM, len(SYMBOL_NAMES)).to(device) if args.symbol_weight > 0
                   else None)
    params = list(model.parameters()) + (list(symbol_head.parameters()) if symbol_head else [])
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=1e-4)
    step = 0
    if args.init_from is not None and not ckpt_path.exists():
        init = torch.load(args.init_from, weights_only=False, map_location=device)["model"]
        missing, unexpected = model.load_state_dict(init, strict=False)
        if unexpected or any(not k.startswith("neck.") for k in missing):
            raise SystemExit(f"checkpoint mismatch: missing {missing}, unexpected {unexpected}")
        print(f"initialised from {args.init_from}", file=log, flush=True)
    if ckpt_path.exists():
        state = torch.load(ckpt_path, weights_only=False, map_location=device)
        model.load_state_dict(state["model"])
        if symbol_head is not None:
            symbol_head.load_state_dict(state["symbol_head"])
        opt.load_state_dict(state["opt"])
        step = state["step"]
        print(f"resumed at step {step}", file=log, flush=True)
    print(f"training on {device}", file=log, flush=True)

    val_crops, val_labels = validation_set(args.seed)
    family_crops, family_labels = family_validation_set(args.seed)
    bank = DetectorBank.load(args.bank) if args.bank else None

    def save(path: Path) -> None:
        tmp = path.with_suffix(".tmp")
        extra = {"symbol_head": symbol_head.state_dict()} if symbol_head is not None else {}
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                    "args": vars(args), **extra}, tmp)
        tmp.replace(path)

    started = time.monotonic()
    loader = DataLoader(_Batches(args.seed, step, args.steps, args.spill_share, args.families,
                                 args.calibration_views),
                        batch_size=None,
                        num_workers=args.workers, prefetch_factor=2 if args.workers else None,
                        persistent_workers=False, pin_memory=device.type == "cuda")
    model.train()
    recent: list[dict[str, torch.Tensor]] = []
    replay_rng = np.random.default_rng([args.seed, 77])

    def update(batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        emb, face_logit, pooled = model.forward_pooled(batch["crops"])
        back = batch["labels"] >= 0
        labels = batch["labels"][back]
        ignored = (blind_sibling_pairs(labels, batch["family"][back], batch["shows_symbol"][back])
                   if args.blind_siblings else None)
        loss_metric = supcon_loss(emb[back], labels, TEMPERATURE, ignored)
        loss_face = F.binary_cross_entropy_with_logits(face_logit, batch["face_up"])
        loss_symbol = torch.zeros((), device=device)
        named = (batch["symbol"] >= 0) & batch["shows_symbol"]
        if symbol_head is not None and named.any():
            loss_symbol = F.cross_entropy(symbol_head(pooled[named]), batch["symbol"][named])
        opt.zero_grad()
        (loss_metric + 0.5 * loss_face + args.symbol_weight * loss_symbol).backward()
        opt.step()
        return loss_metric, loss_face, loss_symbol

    for batch in loader:
        for group in opt.param_groups:
            group["lr"] = _lr(step, args.steps, args.lr, args.warmup)
        if bank is not None:
            batch = bank.extend(batch, np.random.default_rng([args.seed, step, 3]),
                                args.bank_classes, args.bank_face_up)
        batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
        loss_metric, loss_face, loss_symbol = update(batch)
        # Views cost more CPU than updates: reuse recent batches, turned 180 degrees (a card
        # lies either way round, so the label holds).
        recent = [*recent[-5:], batch]
        for _ in range(args.replay):
            old = recent[int(replay_rng.integers(0, len(recent)))]
            update({**old, "crops": torch.flip(old["crops"], dims=(2, 3))})
        step += 1
        elapsed = (time.monotonic() - started) / 60
        if step % 10 == 0:
            symbol = f"symbol {loss_symbol.item():.3f} " if symbol_head is not None else ""
            print(f"step {step} loss {loss_metric.item():.3f} face {loss_face.item():.3f} {symbol}"
                  f"lr {_lr(step, args.steps, args.lr):.5f} min {elapsed:.1f}", file=log, flush=True)
        if step % 100 == 0 or step == args.steps:
            stats = evaluate(model, val_crops, val_labels)
            stats["sibling_nn"] = sibling_accuracy(model, family_crops, family_labels)
            print(f"val step {step} " + " ".join(f"{k} {v:.4f}" for k, v in stats.items()),
                  file=log, flush=True)
            save(ckpt_path)
        if elapsed > args.max_minutes:
            print(f"time limit at step {step}", file=log, flush=True)
            break
    save(ckpt_path)
    save(args.out / f"model_step{step}.pt")
    print(f"done at step {step}", file=log, flush=True)


if __name__ == "__main__":
    main()
