"""The results' ``flows`` and ``links`` tables held as columns.

A run of many flows returns a row per flow and four per flow's links on a
dumbbell: as parsed JSON (a dict per row, an object per value) 10,000 flows
take 47 MB, about 7 KB per flow, more than the run itself. The
engine hands these two tables over as packed columns instead
(``Simulation.finish_columns``, crates/ccsim-py/src/columns.rs): one array
of 8-byte numbers per field, strings held end to end in one string (each
distinct value once, unless the column's values are all distinct) with a
code per row, under 1 KB per flow, each array (NumPy's) holding the memory
the engine filled, never copied. :class:`RowTable` reads them in place and gives
each row as a read-only mapping (:class:`RowView`) with the keys, order,
types and nulls of the row in the JSON document, so code written for
``results.raw["flows"]`` as a list of dicts reads it unchanged;
:meth:`RowTable.dicts` gives real dicts where one is needed (to mutate or
to serialise).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RowTable", "RowView", "plain"]

# A row's state in a column (crates/ccsim-py/src/columns.rs, STATE_*).
_VALUE, _NULL, _ABSENT = 0, 1, 2

#: memoryview formats of the packed kinds, and the formats NumPy gives the
#: same items on LP64 platforms.
_FORMATS = {"f": "d", "u": "Q", "i": "q"}
_SAME = {"Q": "L", "q": "l"}


def _view(data: Any, fmt: str) -> memoryview:
    """A one-dimensional view of packed numbers (a NumPy array from the
    engine, or bytes) whose items are Python ints and floats, as
    ``json.loads`` gives them."""
    mv = memoryview(data)
    if mv.format in (fmt, _SAME.get(fmt)):
        return mv
    if mv.nbytes % struct.calcsize(fmt):
        raise ValueError(f"results column: {mv.nbytes} bytes are not items of {fmt!r}")
    return mv.cast("B").cast(fmt)


class _Column:
    __slots__ = ("name", "kind", "data", "state", "_get", "_state")

    def __init__(self, name: str, kind: str, data: Any, state: Any):
        self.name, self.kind, self.data, self.state = name, kind, data, state
        self._state = None if state is None else _view(state, "B")
        if kind == "u" and memoryview(data).itemsize == 4:
            self._get = _view(data, "I").__getitem__
        elif kind in _FORMATS:
            self._get = _view(data, _FORMATS[kind]).__getitem__
        elif kind == "b":
            self._get = lambda i, d=_view(data, "B"): d[i] != 0
        elif kind == "s":
            # the values end to end, their character offsets, and each
            # row's value's index (columns.rs, Strings)
            text, starts, codes = data
            self._get = lambda i, t=text, s=_view(starts, "I"), c=_view(codes, "I"): t[s[c[i]]:s[c[i] + 1]]
        elif kind == "j":
            self._get = lambda i, d=data: json.loads(d[i])
        elif kind == "n":
            self._get = lambda i: None
        else:
            raise ValueError(f"results column {name!r}: unknown kind {kind!r}")

    def state_of(self, i: int) -> int:
        return _VALUE if self._state is None else self._state[i]


class RowTable(Sequence):
    """A results table (``flows`` or ``links``) as columns; a sequence of
    :class:`RowView` rows. Equal to a list of dicts with the same rows."""

    __slots__ = ("_rows", "_spec", "_cols", "_index")

    def __init__(self, rows: int, columns: List[Tuple[str, str, Any, Optional[bytes]]]):
        self._rows = int(rows)
        self._spec = list(columns)
        self._cols = [_Column(*c) for c in self._spec]
        self._index = {c.name: c for c in self._cols}

    def __reduce__(self):
        return (RowTable, (self._rows, self._spec))

    def __len__(self) -> int:
        return self._rows

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [RowView(self, j) for j in range(*i.indices(self._rows))]
        if i < 0:
            i += self._rows
        if not 0 <= i < self._rows:
            raise IndexError("results row index out of range")
        return RowView(self, i)

    def __iter__(self) -> Iterator["RowView"]:
        return (RowView(self, i) for i in range(self._rows))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (RowTable, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<RowTable: {self._rows} rows, {len(self._cols)} columns>"

    @property
    def columns(self) -> List[str]:
        """The fields, in the rows' order (a field some rows leave out is
        absent from those rows)."""
        return [c.name for c in self._cols]

    def column(self, name: str) -> List[Any]:
        """One field's values, row by row: None where a row has it null
        or does not have it."""
        c = self._index[name]
        get, st = c._get, c._state
        if st is None:
            return [get(i) for i in range(self._rows)]
        return [get(i) if st[i] == _VALUE else None for i in range(self._rows)]

    def dicts(self) -> List[Dict[str, Any]]:
        """Every row as a plain dict (as ``json.loads`` gives the rows)."""
        return [dict(r) for r in self]

    def frame(self, exclude: Tuple[str, ...] = ()) -> "pd.DataFrame":
        """The table as the DataFrame ``pd.DataFrame(self.dicts())`` gives
        (the same columns in the same order, the same dtypes and values),
        built from the columns without a dict per row: a column every row
        has as a number or a bool is taken from its array; the others go
        through pandas' inference as the dicts would (None where a row has
        the field null, NaN where it does not have it). ``exclude`` leaves
        fields out."""
        import numpy as np
        import pandas as pd

        n = self._rows
        cols = [c for c in self._cols if c.name not in exclude]
        if n == 0:
            return pd.DataFrame()

        def first_row(c: _Column) -> int:
            if c._state is None:
                return 0
            return next(i for i in range(n) if c._state[i] != _ABSENT)

        # pandas orders a list of dicts' columns by first appearance
        order = sorted(range(len(cols)), key=lambda j: (first_row(cols[j]), j))
        data: Dict[str, Any] = {}
        for j in order:
            c = cols[j]
            if c._state is None and c.kind in ("f", "u", "i", "b"):
                a = np.asarray(c.data)
                data[c.name] = (a.astype(np.float64, copy=False) if c.kind == "f"
                                else a.astype(bool) if c.kind == "b" else a.astype(np.int64))
                continue
            get, st = c._get, c._state
            if st is None:
                data[c.name] = [get(i) for i in range(n)]
            else:
                nan = float("nan")
                data[c.name] = [get(i) if st[i] == _VALUE else None if st[i] == _NULL else nan for i in range(n)]
        return pd.DataFrame(data)


class RowView(Mapping):
    """One row of a :class:`RowTable`: a read-only mapping with the row's
    keys in the JSON document's order."""

    __slots__ = ("_t", "_i")

    def __init__(self, table: RowTable, i: int):
        self._t, self._i = table, i

    def __getitem__(self, key: str) -> Any:
        c = self._t._index.get(key)
        if c is None:
            raise KeyError(key)
        s = c.state_of(self._i)
        if s == _VALUE:
            return c._get(self._i)
        if s == _NULL:
            return None
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        i = self._i
        return (c.name for c in self._t._cols if c.state_of(i) != _ABSENT)

    def __len__(self) -> int:
        i = self._i
        return sum(1 for c in self._t._cols if c.state_of(i) != _ABSENT)

    def __repr__(self) -> str:
        return repr(dict(self))

    def __reduce__(self):
        return (dict, (dict(self),))


def plain(obj: Any) -> Any:
    """``obj`` with every :class:`RowTable` a list of dicts and every
    :class:`RowView` a dict (for ``json.dumps``), sharing the rest."""
    if isinstance(obj, RowTable):
        return obj.dicts()
    if isinstance(obj, RowView):
        return dict(obj)
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [plain(v) for v in obj]
    return obj
