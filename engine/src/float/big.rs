//! The few big-integer operations exact float conversion needs.

/// A non-negative integer, little-endian 32-bit limbs, no zero limbs at the top.
pub(super) struct Big(pub(super) Vec<u32>);

impl Big {
    pub(super) fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        while b.0.last() == Some(&0) {
            b.0.pop();
        }
        b
    }

    /// The decimal digits (ASCII), most significant first; `0` for zero.
    pub(super) fn into_decimal(mut self) -> Vec<u8> {
        let mut out = Vec::new();
        while !self.is_zero() {
            // Nine digits at a time: the remainder of a division by 10^9.
            let mut rem = 0u64;
            for limb in self.0.iter_mut().rev() {
                let v = (rem << 32) | u64::from(*limb);
                *limb = (v / 1_000_000_000) as u32;
                rem = v % 1_000_000_000;
            }
            while self.0.last() == Some(&0) {
                self.0.pop();
            }
            for _ in 0..9 {
                out.push(b'0' + (rem % 10) as u8);
                rem /= 10;
            }
        }
        while out.len() > 1 && out.last() == Some(&b'0') {
            out.pop();
        }
        if out.is_empty() {
            out.push(b'0');
        }
        out.reverse();
        out
    }

    pub(super) fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(Vec::new());
        for &d in digits {
            b.mul_small(10);
            b.add_small(u32::from(d));
        }
        b
    }

    pub(super) fn mul_small(&mut self, k: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(k) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    pub(super) fn add_small(&mut self, k: u32) {
        let mut carry = k;
        for limb in &mut self.0 {
            let (v, over) = limb.overflowing_add(carry);
            *limb = v;
            if !over {
                return;
            }
            carry = 1;
        }
        if carry > 0 {
            self.0.push(carry);
        }
    }

    pub(super) fn shl(&mut self, bits: usize) {
        let (limbs, bits) = (bits / 32, bits % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = (*limb << bits) | carry;
                carry = *limb >> (32 - bits);
                *limb = v;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        if limbs > 0 && !self.0.is_empty() {
            self.0.splice(0..0, std::iter::repeat_n(0, limbs));
        }
    }

    /// `self -= other`, where `other ≤ self`.
    pub(super) fn sub(&mut self, other: &Big) {
        let mut borrow = false;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let o = other.0.get(i).copied().unwrap_or(0);
            let (v, b1) = limb.overflowing_sub(o);
            let (v, b2) = v.overflowing_sub(u32::from(borrow));
            *limb = v;
            borrow = b1 || b2;
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    pub(super) fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    pub(super) fn bits(&self) -> usize {
        self.0
            .last()
            .map_or(0, |top| self.0.len() * 32 - top.leading_zeros() as usize)
    }

    pub(super) fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
}
