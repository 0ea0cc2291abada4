"""Render a photo of cards on a table with exact per-card ground truth.

Pipeline: decks -> layout (table mm) -> camera -> card-id buffer in z-order -> lens remap
(nearest) -> drop cards whose visible part is too thin -> colour: table, shadows, cards -> lens
remap (bilinear) -> light and sensor -> JPEG -> labels measured on the final owner map.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .camera import Camera, make_camera, to_canvas
from .cards import (
    bake_edge,
    card_to_table,
    draw_card,
    inset,
    outline_local_mm,
    pick_level,
    pyramid,
)
from .clutter import add_clutter
from .decks import make_decks
from .designs import CARD_WH
from .fronts import random_front
from .labels import bbox_of, polygon_area, visible_polygon
from .layouts import PRESETS, Layout, make_layout
from .occluders import draw_occluders, random_occluders
from .photo import Lighting, apply_photo, jpeg_roundtrip
from .tables import ALL_TABLE_KINDS, random_table
from .visibility import filter_visible

# (W, H) of webcams and phones; portrait orientation is drawn separately
IMAGE_SIZES_WH: tuple[tuple[int, int], ...] = (
    (1280, 720), (1920, 1080), (1600, 1200), (2048, 1536), (2560, 1440), (3264, 2448),
    (3840, 2160), (4032, 3024),
)


@dataclass(frozen=True, eq=False)
class SceneOptions:
    """What to render; ranges are (low, high) drawn uniformly per scene unless noted."""

    preset: str = "mixed"  # mixed | spread | rows | fan | pile | sorted (one deck a row)
    n_decks: int = 4
    families: bool = False  # decks share one design and differ by a symbol (a Ligretto box)
    n_cards: tuple[int, int] = (3, 150)  # drawn log-uniformly, before visibility filtering
    face_up_fraction: float = 0.05
    image_wh: tuple[int, int] | None = None  # None: random webcam .. phone size
    min_strip_px: float = 12.0  # cards whose visible part is thinner are dropped
    designs: list[np.ndarray] | None = None  # use these deck designs instead of random ones
    deck_names: list[str] | None = None  # names for ``designs``
    camera_tilt_deg: tuple[float, float] = (0.0, 35.0)
    #: the camera's horizontal field of view; narrow for renders that stand for crops
    camera_hfov_deg: tuple[float, float] = (55.0, 75.0)
    jpeg_quality: tuple[int, int] = (50, 95)
    card_px: tuple[float, float] | None = None  # card height in px: fixed scale, cropped view
    row_offset_frac: tuple[float, float] = (0.15, 0.6)  # shingle offset, fraction of card side
    pile_min_visible: float = 0.2  # every pile card keeps at least this fraction visible
    table_kind: str | None = None  # wood | felt | cloth | laminate | tablecloth | knit; None random
    lens_distortion: float = 0.04  # max |k1|
    clutter: bool = True  # table edge, score pad, phone, pens, coins ... around the cards
    occluder_prob: float = 0.15  # a hand or a pen over the cards (hides them: not card pixels)
    # Training renders only (the benchmark splits keep the bytes they were measured on): more
    # clutter with raised keyboard keys, and court cards with busy, printed pictures.
    busy_clutter: bool = False
    court_style: str = "flat"  # flat | figure
    knit_share: float = 0.0  # share of random tables that are a chunky knit blanket
    ordinary_front_share: float = 0.4  # face-up cards that are ordinary playing cards, not Ligretto's
    lighting: Lighting = field(default_factory=Lighting)
    # explicit scene geometry (tests, demos): (n, 3) rows of (cx_mm, cy_mm, angle_rad), bottom
    # card first; card size in mm; deck index per card. None = drawn at random.
    poses_mm: np.ndarray | None = None
    card_wh_mm: tuple[float, float] | None = None
    card_decks: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise ValueError(f"preset must be one of {PRESETS}, got {self.preset!r}")
        if self.court_style not in ("flat", "figure"):
            raise ValueError(f"court_style must be flat or figure, got {self.court_style!r}")
        if self.table_kind is not None and self.table_kind not in ALL_TABLE_KINDS:
            raise ValueError(
                f"table_kind must be one of {ALL_TABLE_KINDS}, got {self.table_kind!r}")
        if not 0.0 <= self.knit_share <= 1.0:
            raise ValueError(f"knit_share must be in [0, 1], got {self.knit_share}")
        if not 0.0 <= self.ordinary_front_share <= 1.0:
            raise ValueError(
                f"ordinary_front_share must be in [0, 1], got {self.ordinary_front_share}")
        lo, hi = self.n_cards
        if not 1 <= lo <= hi:
            raise ValueError(f"n_cards must be (low, high) with 1 <= low <= high, got {self.n_cards}")
        if self.designs is not None and len(self.designs) == 0:
            raise ValueError("designs must not be empty")


@dataclass(frozen=True, eq=False)
class CardLabel:
    """Ground truth of one visible card. Coordinates are output-image pixels (x, y)."""

    card_id: int  # position in the layout's z-order (stable across dropped cards)
    deck_id: int  # index into Scene.deck_names; -1 for face-up cards
    deck_name: str  # "" for face-up cards
    face_up: bool
    quad_xy: np.ndarray  # (4, 2) float32 corners TL, TR, BR, BL of the card in its own frame
    visible_fraction: float
    centroid_xy: np.ndarray  # (2,) mean of visible pixels
    strip_px: float  # diameter of the largest disc inside the visible part
    visible_polygon_xy: np.ndarray  # (k, 2) outer contour of the largest visible component
    centre_xy: np.ndarray  # (2,) visible point farthest from the visible part's boundary
    visible_px: int = 0
    true_deck_id: int = -1  # deck the card belongs to, also for face-up cards


@dataclass(frozen=True, eq=False)
class Scene:
    """A rendered photo and its labels; ``owner_map`` indexes ``cards`` (-1 = table)."""

    image: np.ndarray
    cards: tuple[CardLabel, ...]
    owner_map: np.ndarray
    deck_designs: list[np.ndarray]
    deck_names: list[str]
    layout: str
    params: dict
    jpeg_bytes: bytes = b""  # the encoded photo; decodes to exactly ``image``

    def counts(self) -> dict[str, int]:
        """Face-down cards per deck name (every deck listed, also with 0)."""
        out = {name: 0 for name in self.deck_names}
        for c in self.cards:
            if not c.face_up:
                out[c.deck_name] += 1
        return out

    @property
    def face_up_count(self) -> int:
        """How many of the scene's cards lie face up."""
        return sum(1 for c in self.cards if c.face_up)


def _loguniform_int(rng, lo: int, hi: int) -> int:
    return int(min(hi, max(lo, round(math.exp(rng.uniform(math.log(lo), math.log(hi + 0.999)))))))


def _random_image_wh(rng) -> tuple[int, int]:
    w, h = IMAGE_SIZES_WH[int(rng.integers(len(IMAGE_SIZES_WH)))]
    return (h, w) if rng.random() < 0.25 else (w, h)


def _assign_decks(rng, layout, n_decks: int, face_up_fraction: float, sorted_rows: bool = False):
    """Ligretto rows belong to one player, centre piles mix everyone's cards; in a sorted photo
    every row is one player's deck, a deck a row while there are decks enough."""
    n = len(layout.poses)
    deck = np.empty(n, np.int64)
    if sorted_rows:
        row_deck = rng.permutation(max(n_decks, int(layout.group_id.max()) + 1)) % n_decks
        deck[:] = row_deck[layout.group_id]
        face_up = rng.random(n) < face_up_fraction
        return deck, face_up
    for g in np.unique(layout.group_id):
        sel = np.nonzero(layout.group_id == g)[0]
        if rng.random() < 0.5:
            deck[sel] = rng.integers(n_decks)
        else:
            deck[sel] = rng.integers(0, n_decks, len(sel))
    face_up = rng.random(n) < face_up_fraction
    return deck, face_up


def _table_canvas(rng, camera: Camera, options: SceneOptions, designs, bordered_white: bool,
                  layout_bbox_mm):
    """Table texture drawn in table mm, warped into the canvas by the camera."""
    cw, ch = camera.canvas_wh
    Hinv = np.linalg.inv(camera.canvas_H)
    corners = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64)
    q = corners @ Hinv[:, :2].T + Hinv[:, 2]
    mm = q[:, :2] / q[:, 2:3]
    x0, y0 = mm.min(0)
    x1, y1 = mm.max(0)
    # texture detail beyond ~0.6 px per output px is invisible after the warp and costs time
    budget_px = 0.25 * cw * ch
    px_per_mm = min(camera.params["px_per_mm"] * 0.6,
                    math.sqrt(budget_px / max((x1 - x0) * (y1 - y0), 1.0)))
    px_per_mm = max(px_per_mm, 0.05)
    tw, th = max(8, int((x1 - x0) * px_per_mm)), max(8, int((y1 - y0) * px_per_mm))
    u = rng.random()
    near = None
    white = bordered_white and u < 0.5
    if not white and u < 0.25:  # a table colour close to one deck's back colour
        d = designs[int(rng.integers(len(designs)))]
        near = tuple(float(v) for v in cv2.mean(d)[:3])
    kind = options.table_kind
    # drawn only when asked for, so that renders without knits keep their random stream
    if kind is None and options.knit_share > 0 and rng.random() < options.knit_share:
        kind = "knit"
    tex, params = random_table(rng, (tw, th), px_per_mm, kind, near, white)
    if options.clutter:
        keepout = (np.asarray(layout_bbox_mm, np.float64) - (x0, y0, x0, y0)) * px_per_mm
        params["clutter"] = add_clutter(rng, tex, px_per_mm, keepout,
                                        busy=options.busy_clutter)
    S = np.array([[px_per_mm, 0, -x0 * px_per_mm], [0, px_per_mm, -y0 * px_per_mm], [0, 0, 1]])
    M = camera.canvas_H @ np.linalg.inv(S)
    canvas = cv2.warpPerspective(tex.astype(np.float32), M, (cw, ch), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)
    return canvas, params


def render_scene(seed: int, options: SceneOptions = SceneOptions()) -> Scene:  # noqa: B008
    """Render one photo; the same ``seed`` and ``options`` give identical bytes and labels."""
    rng = np.random.default_rng(seed)
    image_wh = tuple(options.image_wh) if options.image_wh else _random_image_wh(rng)
    card_w_mm = rng.uniform(56, 64)
    card_wh_mm = (card_w_mm, card_w_mm * rng.uniform(1.38, 1.58))
    if options.card_wh_mm is not None:
        card_wh_mm = tuple(float(v) for v in options.card_wh_mm)
    corner_mm = rng.uniform(2.0, 4.0)
    if options.poses_mm is not None:
        poses = np.asarray(options.poses_mm, np.float64).reshape(-1, 3)
        layout = Layout(poses, ("spread",) * len(poses), np.zeros(len(poses), np.int64))
    else:
        n = _loguniform_int(rng, *options.n_cards)
        layout = make_layout(rng, options.preset, n, card_wh_mm, options.row_offset_frac,
                             aspect_wh=image_wh[0] / image_wh[1])
    px_per_mm = None
    if options.card_px is not None:
        px_per_mm = rng.uniform(*options.card_px) / card_wh_mm[1]
    camera = make_camera(rng, image_wh, _layout_bbox(layout.poses, card_wh_mm),
                         options.camera_tilt_deg, px_per_mm=px_per_mm,
                         distortion=options.lens_distortion, hfov_deg=options.camera_hfov_deg)
    mm_px = camera.params["px_per_mm"]
    card_h_px = card_wh_mm[1] * mm_px
    # small on-screen cards do not need full-size designs (4x cheaper to draw)
    design_wh = CARD_WH if card_h_px > 0.8 * CARD_WH[1] else (CARD_WH[0] // 2, CARD_WH[1] // 2)
    designs, names = make_decks(rng, options, design_wh)
    deck_of, face_up = _assign_decks(rng, layout, len(designs), options.face_up_fraction,
                                     sorted_rows=options.preset == "sorted")
    if options.card_decks is not None:
        deck_of = np.asarray(options.card_decks, np.int64)

    outline = outline_local_mm(card_wh_mm, corner_mm)
    H_cards = [camera.canvas_H @ card_to_table(p, card_wh_mm) for p in layout.poses]
    outlines_canvas = np.stack([to_canvas(H, outline) for H in H_cards])
    polys_image = list(camera.canvas_to_image(outlines_canvas))
    polys_canvas = list(inset(outlines_canvas))  # what gets filled, see cards.inset
    bboxes = [bbox_of(p, image_wh) for p in polys_image]
    areas = [polygon_area(p) for p in polys_image]
    on_image = [i for i, b in enumerate(bboxes) if b[2] > b[0] and b[3] > b[1]]
    min_frac = [options.pile_min_visible if k == "pile" else 0.0 for k in layout.group_kind]
    maps = camera.remap_maps()
    occluders = random_occluders(rng, camera.canvas_wh, card_h_px, options.occluder_prob)
    alive, owner, stats = filter_visible(camera, maps, polys_canvas, bboxes, areas,
                                         options.min_strip_px, min_frac, on_image, occluders)

    # colour: table, then cards bottom to top, then the lens
    white_border = any(float(np.mean(d[:3, :3])) > 225 for d in designs)
    canvas, table_params = _table_canvas(rng, camera, options, designs, white_border,
                                         _layout_bbox(layout.poses, card_wh_mm))
    edge_bgr = (float(rng.uniform(185, 245)),) * 3
    edge_alpha = float(rng.uniform(0.3, 0.8))
    pyramids = [pyramid(bake_edge(d, card_wh_mm, corner_mm, edge_bgr, edge_alpha))
                for d in designs]
    light_dir = rng.uniform(0, 2 * math.pi)
    shadow_mm = rng.uniform(0.2, 1.2)
    shadow = (math.cos(light_dir) * shadow_mm * mm_px, math.sin(light_dir) * shadow_mm * mm_px,
              rng.uniform(0.4, 1.5) * mm_px, rng.uniform(0.15, 0.45))
    for i in alive:
        if face_up[i]:
            front = random_front(rng, design_wh, options.court_style, options.ordinary_front_share)
            tex = bake_edge(front, card_wh_mm, corner_mm, edge_bgr, edge_alpha)
        else:
            tex, _ = pick_level(pyramids[deck_of[i]], card_h_px)
        gain = rng.uniform(0.93, 1.04)  # no two cards lie perfectly flat under the light
        sheen = tuple(rng.normal(0, 0.12, 2) / card_h_px)
        draw_card(canvas, tex, H_cards[i], card_wh_mm, polys_canvas[i], shadow, gain, sheen)
    draw_occluders(canvas, occluders)
    img, light_params = apply_photo(rng, camera.apply(canvas, maps), options.lighting)
    quality = int(rng.integers(options.jpeg_quality[0], options.jpeg_quality[1] + 1))
    img, jpeg = jpeg_roundtrip(img, quality)

    sharp = np.array([[0, 0], [card_wh_mm[0], 0], [card_wh_mm[0], card_wh_mm[1]],
                      [0, card_wh_mm[1]]])
    cards = []
    for pos, i in enumerate(alive):
        st = stats[i]
        quad = camera.project_mm(to_canvas(card_to_table(layout.poses[i], card_wh_mm), sharp))
        d = int(deck_of[i])
        cards.append(CardLabel(
            card_id=i, deck_id=-1 if face_up[i] else d, deck_name="" if face_up[i] else names[d],
            face_up=bool(face_up[i]), quad_xy=quad.astype(np.float32),
            visible_fraction=float(min(1.0, st.visible_px / max(areas[i], 1.0))),
            centroid_xy=st.centroid_xy, strip_px=float(st.strip_px),
            visible_polygon_xy=visible_polygon(owner, pos, bboxes[i]), centre_xy=st.centre_xy,
            visible_px=st.visible_px, true_deck_id=d,
        ))
    params = {
        "seed": int(seed), "image_wh": list(image_wh), "preset": options.preset,
        "families": options.families, "n_cards_placed": len(layout.poses),
        # by card_id: which group (row, fan, pile, spread) each placed card belongs to
        "group_of_card": [int(g) for g in layout.group_id], "group_kind": list(layout.group_kind),
        "n_cards_visible": len(cards), "card_wh_mm": [float(v) for v in card_wh_mm],
        "corner_mm": float(corner_mm), "design_wh": list(design_wh), "camera": camera.params,
        "table": table_params, "lighting": light_params, "jpeg_quality": quality,
        "occluders": [o.kind for o in occluders],
        "shadow": {"offset_mm": float(shadow_mm), "strength": float(shadow[3])},
    }
    return Scene(img, tuple(cards), owner, designs, names, options.preset, params, jpeg)


def _layout_bbox(poses, card_wh_mm) -> np.ndarray:
    r = math.hypot(*card_wh_mm) / 2
    return np.array([poses[:, 0].min() - r, poses[:, 1].min() - r, poses[:, 0].max() + r,
                     poses[:, 1].max() + r])


def render_calibration_photo(
    seed: int,
    design: np.ndarray,
    n_cards: tuple[int, int] = (5, 10),
    image_wh: tuple[int, int] | None = None,
    deck_name: str = "deck",
    preset: str | None = None,
    **lighting,
) -> Scene:
    """A calibration photo: 5-10 cards of one deck only, spread or lightly overlapping.

    ``preset`` fixes the layout ("spread" is what the README asks of users); by default it is
    drawn, spread 60% of the time, as users do not always follow the advice. ``lighting``
    overrides :class:`Lighting` fields (e.g. ``colour_temp_k=(2700, 3500)``); by default the
    light is drawn independently of any game photo rendered with other seeds.
    """
    rng = np.random.default_rng([seed, 0xCA1])
    drawn_preset = "spread" if rng.random() < 0.6 else "rows"
    preset = preset or drawn_preset
    options = SceneOptions(
        preset=preset, n_decks=1, designs=[design], deck_names=[deck_name], n_cards=n_cards,
        face_up_fraction=0.0, image_wh=image_wh, row_offset_frac=(0.4, 0.75),
        lighting=dataclasses.replace(Lighting(), **lighting),
    )
    return render_scene(int(rng.integers(2**31)), options)
