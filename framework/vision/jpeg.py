"""A baseline JPEG decoder in numpy, for reading JPEG files without Pillow.

Supports what cameras and the public data sets write: baseline sequential
DCT (SOF0) and extended sequential Huffman (SOF1) with 8-bit samples, one
(grey) or three (YCbCr) components, any chroma subsampling and restart
markers. Progressive, lossless and arithmetic-coded files raise a clear error
asking for Pillow. The inverse DCT is exact (float) and 2x chroma is upsampled
with libjpeg's triangle filter, so pixels differ from libjpeg's fixed-point
output (Pillow's) by a level or two at most in smooth images.
"""
import numpy as np

__all__ = ['decode_jpeg']

# zig-zag order: position k of the coded sequence -> index in the 8x8 block
_ZIGZAG = np.array([
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34,
    27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37,
    44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63])


def _idct_matrix():
    n = np.arange(8)
    c = np.where(n == 0, np.sqrt(1 / 8), np.sqrt(2 / 8))
    return c[:, None] * np.cos((2 * n[None, :] + 1) * n[:, None] * np.pi / 16)


_IDCT = _idct_matrix()      # [u, x]: block = IDCT.T @ coefficients @ IDCT


class _Huffman:
    """A 16-bit look-up table: the next 16 bits -> (symbol, code length)."""

    def __init__(self, counts, symbols):
        self.symbol = np.zeros(1 << 16, np.int32)
        self.length = np.zeros(1 << 16, np.int32)
        code, k = 0, 0
        for bits in range(1, 17):
            for _ in range(counts[bits - 1]):
                lo = code << (16 - bits)
                hi = (code + 1) << (16 - bits)
                self.symbol[lo:hi] = symbols[k]
                self.length[lo:hi] = bits
                code += 1
                k += 1
            code <<= 1
        self.symbol = self.symbol.tolist()
        self.length = self.length.tolist()


class _Bits:
    """Reads bits from an entropy-coded segment (stuffed 0xFF00 bytes removed)."""

    def __init__(self, data):
        self.data = data + b'\x00\x00\x00\x00'
        self.pos = 0
        self.end = 8 * len(data)

    def check(self):
        if self.pos > self.end:
            raise ValueError("the entropy-coded data ends early (truncated file)")

    def peek16(self):
        d, i = self.data, self.pos >> 3
        v = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2]
        return (v >> (8 - (self.pos & 7))) & 0xFFFF

    def receive(self, n):
        """The next ``n`` bits as a signed JPEG value (EXTEND of the standard)."""
        if n == 0:
            return 0
        d, i = self.data, self.pos >> 3
        v = (d[i] << 24) | (d[i + 1] << 16) | (d[i + 2] << 8) | d[i + 3]
        v = (v >> (32 - (self.pos & 7) - n)) & ((1 << n) - 1)
        self.pos += n
        return v if v >= 1 << (n - 1) else v - (1 << n) + 1

    def decode(self, table):
        p = self.peek16()
        length = table.length[p]
        if length == 0:
            raise ValueError("invalid Huffman code")
        self.pos += length
        return table.symbol[p]


def _segments(data, what):
    """(marker, payload) pairs up to the first scan, then the scan data."""
    pos = 2
    while pos < len(data):
        if data[pos] != 0xFF:
            raise ValueError("%s: damaged JPEG (expected a marker at byte %d)" % (what, pos))
        marker = data[pos + 1]
        pos += 2
        if marker == 0xFF:          # fill byte
            pos -= 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            continue
        if marker == 0xD9:
            return
        length = (data[pos] << 8) | data[pos + 1]
        payload = data[pos + 2:pos + length]
        pos += length
        if marker == 0xDA:
            end = _scan_end(data, pos)
            yield marker, payload, data[pos:end]
            pos = end
        else:
            yield marker, payload, None


def _scan_end(data, pos):
    """Index of the marker that ends the entropy-coded data starting at ``pos``."""
    while True:
        pos = data.find(b'\xff', pos)
        if pos < 0 or pos + 1 >= len(data):
            return len(data)
        nxt = data[pos + 1]
        if nxt == 0 or 0xD0 <= nxt <= 0xD7:
            pos += 2
            continue
        return pos


class _Frame:
    def __init__(self, payload, what):
        self.precision = payload[0]
        self.height = (payload[1] << 8) | payload[2]
        self.width = (payload[3] << 8) | payload[4]
        n = payload[5]
        self.components = []
        for i in range(n):
            cid, sampling, tq = payload[6 + 3 * i:9 + 3 * i]
            self.components.append({'id': cid, 'h': sampling >> 4, 'v': sampling & 15, 'tq': tq})
        if self.precision != 8 or n not in (1, 3) or self.height == 0:
            raise ValueError("%s: JPEG with %d-bit samples, %d components and height %d is not "
                             "supported without Pillow" % (what, self.precision, n, self.height))
        self.hmax = max(c['h'] for c in self.components)
        self.vmax = max(c['v'] for c in self.components)
        self.mcux = -(-self.width // (8 * self.hmax))
        self.mcuy = -(-self.height // (8 * self.vmax))
        for c in self.components:
            c['coef'] = np.zeros((self.mcuy * c['v'], self.mcux * c['h'], 64), np.int32)


def decode_jpeg(data, what='JPEG image', luma_only=False):
    """The pixels of a baseline JPEG file: [H, W] uint8 (grey) or [H, W, 3] RGB;
    ``luma_only``: the [H, W] luma (Y) plane of any file, colour or not."""
    data = bytes(data)
    if data[:2] != b'\xff\xd8':
        raise ValueError("%s: not a JPEG file (no SOI marker)" % what)
    try:
        return _decode(data, what, luma_only)
    except (IndexError, KeyError) as e:     # tables or headers cut short or missing
        raise ValueError("%s: damaged JPEG file (%s: %s)" % (what, type(e).__name__, e)) \
            from None


def _decode(data, what, luma_only):
    quant, dc_tables, ac_tables = {}, {}, {}
    frame, restart = None, 0
    for marker, payload, scan in _segments(data, what):
        if marker == 0xDB:
            _read_quant(payload, quant)
        elif marker == 0xC4:
            _read_huffman(payload, dc_tables, ac_tables)
        elif marker in (0xC0, 0xC1):
            frame = _Frame(payload, what)
        elif 0xC2 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            raise ValueError("%s: progressive, lossless or arithmetic-coded JPEG (SOF%d) needs "
                             "Pillow (pip install pillow)" % (what, marker - 0xC0))
        elif marker == 0xDD:
            restart = (payload[0] << 8) | payload[1]
        elif marker == 0xDA:
            if frame is None:
                raise ValueError("%s: scan before the frame header" % what)
            _decode_scan(frame, payload, scan, dc_tables, ac_tables, restart, what)
    if frame is None:
        raise ValueError("%s: no frame header in the JPEG file" % what)
    if luma_only:
        frame.components = frame.components[:1]
    return _to_pixels(frame, quant)


def _read_quant(payload, quant):
    pos = 0
    while pos < len(payload):
        precision, tq = payload[pos] >> 4, payload[pos] & 15
        size = 128 if precision else 64
        table = np.frombuffer(payload[pos + 1:pos + 1 + size], '>u2' if precision else 'u1')
        q = np.zeros(64, np.float64)
        q[_ZIGZAG] = table
        quant[tq] = q
        pos += 1 + size


def _read_huffman(payload, dc_tables, ac_tables):
    pos = 0
    while pos < len(payload):
        tc, th = payload[pos] >> 4, payload[pos] & 15
        counts = list(payload[pos + 1:pos + 17])
        total = sum(counts)
        symbols = list(payload[pos + 17:pos + 17 + total])
        (ac_tables if tc else dc_tables)[th] = _Huffman(counts, symbols)
        pos += 17 + total


def _decode_scan(frame, header, scan, dc_tables, ac_tables, restart, what):
    n = header[0]
    by_id = {c['id']: c for c in frame.components}
    comps = []
    for i in range(n):
        cid, tables = header[1 + 2 * i], header[2 + 2 * i]
        comps.append((by_id[cid], dc_tables[tables >> 4], ac_tables[tables & 15]))
    # restart markers split the data into intervals that each start fresh
    pieces = _split_restarts(scan)
    single = n == 1
    if single:   # a non-interleaved scan covers the component's own block grid
        c = comps[0][0]
        rows = -(-frame.height * c['v'] // (8 * frame.vmax))
        cols = -(-frame.width * c['h'] // (8 * frame.hmax))
        units = [(c, by, bx) for by in range(rows) for bx in range(cols)]
    else:
        units = None
    total = len(units) if single else frame.mcux * frame.mcuy
    per_interval = restart or total
    index = 0
    try:
        for piece in pieces:
            if index >= total:
                break
            bits = _Bits(piece)
            preds = [0] * len(comps)
            for _ in range(min(per_interval, total - index)):
                if single:
                    c, by, bx = units[index]
                    preds[0] = _decode_block(bits, comps[0][1], comps[0][2], preds[0],
                                             c['coef'][by, bx])
                else:
                    my, mx = divmod(index, frame.mcux)
                    for k, (c, dc, ac) in enumerate(comps):
                        for v in range(c['v']):
                            for h in range(c['h']):
                                block = c['coef'][my * c['v'] + v, mx * c['h'] + h]
                                preds[k] = _decode_block(bits, dc, ac, preds[k], block)
                bits.check()
                index += 1
    except (ValueError, IndexError) as e:
        raise ValueError("%s: damaged JPEG data (%s)" % (what, e)) from None


def _split_restarts(scan):
    """The entropy-coded intervals between RST markers, with 0xFF00 unstuffed."""
    pieces, start, pos = [], 0, 0
    while True:
        pos = scan.find(b'\xff', pos)
        if pos < 0 or pos + 1 >= len(scan):
            break
        if 0xD0 <= scan[pos + 1] <= 0xD7:
            pieces.append(scan[start:pos])
            start = pos + 2
        pos += 2
    pieces.append(scan[start:])
    return [p.replace(b'\xff\x00', b'\xff') for p in pieces]


def _decode_block(bits, dc, ac, pred, block):
    t = bits.decode(dc)
    pred += bits.receive(t)
    block[0] = pred
    k = 1
    while k < 64:
        rs = bits.decode(ac)
        r, s = rs >> 4, rs & 15
        if s == 0:
            if r != 15:          # end of block
                break
            k += 16
            continue
        k += r
        block[_ZIGZAG[k]] = bits.receive(s)
        k += 1
    return pred


def _to_pixels(frame, quant):
    planes = []
    for c in frame.components:
        coef = c['coef'].astype(np.float64) * quant[c['tq']]
        rows, cols = coef.shape[:2]
        blocks = np.einsum('ux,rcuv,vy->rcxy', _IDCT, coef.reshape(rows, cols, 8, 8), _IDCT)
        plane = blocks.transpose(0, 2, 1, 3).reshape(rows * 8, cols * 8) + 128
        plane = np.clip(np.rint(plane), 0, 255).astype(np.int32)
        plane = _upsample(plane, frame.vmax // c['v'], frame.hmax // c['h'])
        planes.append(plane[:frame.height, :frame.width])
    if len(planes) == 1:
        return planes[0].astype(np.uint8)
    y, cb, cr = planes[0], planes[1] - 128.0, planes[2] - 128.0
    rgb = np.stack([y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb], axis=2)
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def _upsample(plane, fy, fx):
    """Chroma upsampling: libjpeg's "fancy" triangle filter for 2x factors (its
    default, so colours match Pillow's), replication for other factors."""
    if (fy, fx) == (1, 1):
        return plane
    if fy in (1, 2) and fx in (1, 2):
        if fy == 2 and fx == 2:     # vertical 3:1 sums, then horizontal with /16 rounding
            sums = _triangle_pairs(plane, axis=0, scale_only=True)
            return _triangle_pairs(sums, axis=1, shift=4, bias=(8, 7))
        if fx == 2:
            return _triangle_pairs(plane, axis=1, shift=2, bias=(1, 2))
        return _triangle_pairs(plane, axis=0, shift=2, bias=(1, 2))
    return np.repeat(np.repeat(plane, fy, axis=0), fx, axis=1)


def _triangle_pairs(a, axis, shift=0, bias=(0, 0), scale_only=False):
    """Each sample becomes two: 3/4 of itself plus 1/4 of its neighbour on that
    side (edges replicated). ``scale_only`` keeps the 4x sums unrounded."""
    a = np.moveaxis(a, axis, 0)
    before = np.concatenate([a[:1], a[:-1]])
    after = np.concatenate([a[1:], a[-1:]])
    first, second = 3 * a + before, 3 * a + after
    if not scale_only:
        if shift == 4:      # the edge samples of the second pass copy the sum
            first[0], second[-1] = 4 * a[0], 4 * a[-1]
        first, second = (first + bias[0]) >> shift, (second + bias[1]) >> shift
    out = np.stack([first, second], axis=1).reshape((-1,) + a.shape[1:])
    return np.moveaxis(out, 0, axis)
