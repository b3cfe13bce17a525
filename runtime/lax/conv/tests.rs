use super::*;

/// The convolution as its defining sum, one output element at a time.
fn reference(lhs: &[f32], rhs: &[f32], spec: &ConvSpec) -> Vec<f32> {
    let at = |shape: &[usize], perm: &[usize], idx: &[usize]| -> usize {
        let st = shape::strides(shape);
        idx.iter().zip(perm).map(|(&i, &a)| i * st[a]).sum()
    };
    let canon = |shape: &[usize], perm: &[usize]| -> Vec<usize> {
        perm.iter().map(|&a| shape[a]).collect()
    };
    let (ls, rs, os) = (
        canon(&spec.lhs_shape, &spec.lhs_perm),
        canon(&spec.rhs_shape, &spec.rhs_perm),
        canon(&spec.out_shape, &spec.out_perm),
    );
    let nsp = ls.len() - 2;
    let (fgc, bgc) = (spec.feature_group_count, spec.batch_group_count);
    let og = rs[0] / (fgc * bgc);
    let mut out = vec![0.0f32; os.iter().product()];
    let mut oi = vec![0usize; os.len()];
    for _ in 0..out.len() {
        let (n, o) = (oi[0], oi[1]);
        let g = o / og;
        let nb = if bgc > 1 { g * os[0] + n } else { n };
        let mut sum = 0.0f32;
        let mut ki = vec![0usize; rs.len() - 1]; // (i, taps..)
        for _ in 0..rs[1..].iter().product::<usize>() {
            let ci = if fgc > 1 { g * rs[1] + ki[0] } else { ki[0] };
            let mut li = vec![nb, ci];
            for d in 0..nsp {
                let x = (oi[2 + d] * spec.window_strides[d] + ki[1 + d] * spec.rhs_dilation[d])
                    as i64
                    - spec.padding[d].0;
                let ld = spec.lhs_dilation[d] as i64;
                if x >= 0 && x % ld == 0 && ((x / ld) as usize) < ls[2 + d] {
                    li.push((x / ld) as usize);
                }
            }
            if li.len() == ls.len() {
                let mut ri = vec![o];
                ri.extend_from_slice(&ki);
                sum += lhs[at(&spec.lhs_shape, &spec.lhs_perm, &li)]
                    * rhs[at(&spec.rhs_shape, &spec.rhs_perm, &ri)];
            }
            step(&mut ki, &rs[1..]);
        }
        out[at(&spec.out_shape, &spec.out_perm, &oi)] = sum;
        step(&mut oi, &os);
    }
    out
}

/// Small integers (exact sums in any order) from a fixed LCG.
fn values(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % 7) as f32 - 3.0
        })
        .collect()
}

#[test]
fn kernel_is_the_defining_sum() {
    type Case = (
        &'static [usize],
        &'static [usize],
        &'static [usize],
        (
            &'static [(i64, i64)],
            Option<&'static [usize]>,
            Option<&'static [usize]>,
        ),
        (&'static str, &'static str, &'static str),
        (usize, usize),
    );
    let cases: &[Case] = &[
        // Channels last, strides, asymmetric padding, kernel dilation.
        (
            &[3, 9, 7, 4],
            &[3, 2, 4, 5],
            &[2, 1],
            (&[(1, 2), (0, 1)], None, Some(&[1, 2])),
            ("NHWC", "HWIO", "NHWC"),
            (1, 1),
        ),
        // Channels first over several row chunks that cross images.
        (
            &[2, 3, 20, 20],
            &[2, 3, 3, 3],
            &[1, 1],
            (&[(1, 1), (1, 1)], None, None),
            ("NCHW", "OIHW", "NCHW"),
            (1, 1),
        ),
        // Many images, one input feature, channels last (a first layer).
        (
            &[9, 12, 12, 1],
            &[5, 5, 1, 8],
            &[1, 1],
            (&[(2, 2), (2, 2)], None, None),
            ("NHWC", "HWIO", "NHWC"),
            (1, 1),
        ),
        // Feature groups with input dilation (a grouped transposed conv).
        (
            &[2, 5, 6, 4],
            &[3, 3, 2, 6],
            &[1, 1],
            (&[(2, 2), (1, 2)], Some(&[2, 2]), None),
            ("NHWC", "HWIO", "NHWC"),
            (2, 1),
        ),
        // Batch groups (a grouped conv's kernel gradient), odd layouts.
        (
            &[4, 6, 7, 3],
            &[2, 3, 3, 4],
            &[1, 2],
            (&[(0, 1), (1, 1)], None, None),
            ("NHWC", "HWIO", "CHWN"),
            (1, 2),
        ),
        (
            &[5, 6, 3, 7],
            &[7, 4, 3, 2],
            &[1, 1],
            (&[(1, 0), (1, 1)], None, Some(&[2, 1])),
            ("HWNC", "IOHW", "NCHW"),
            (1, 1),
        ),
        // The kernel gradient of a channels-last layer (batch as
        // features, one huge row per tap: gathered by several threads).
        (
            &[64, 20, 20, 1],
            &[16, 16, 64, 2],
            &[1, 1],
            (&[(0, 0), (0, 0)], None, None),
            ("CHWN", "HWIO", "NHWC"),
            (1, 1),
        ),
        // The same with several images: neither the features nor the
        // last spatial axis is contiguous, so the input is first copied
        // into the canonical layout.
        (
            &[6, 7, 5, 3],
            &[3, 2, 6, 4],
            &[1, 1],
            (&[(1, 1), (0, 1)], None, None),
            ("CHWN", "HWIO", "NHWC"),
            (1, 1),
        ),
        // 1-D and 3-D.
        (
            &[3, 4, 30],
            &[6, 4, 5],
            &[3],
            (&[(2, 1)], None, Some(&[2])),
            ("NCH", "OIH", "NCH"),
            (1, 1),
        ),
        (
            &[2, 5, 4, 6, 3],
            &[2, 2, 3, 3, 4],
            &[1, 2, 1],
            (&[(1, 0), (0, 1), (1, 1)], None, None),
            ("NDHWC", "DHWIO", "NDHWC"),
            (1, 1),
        ),
    ];
    for (c, &(l, r, strides, (pad, ld, rd), dn, (fgc, bgc))) in cases.iter().enumerate() {
        let spec = ConvSpec::new(
            l,
            r,
            strides,
            &Padding::Explicit(pad.to_vec()),
            ld,
            rd,
            Some(dn),
            fgc,
            bgc,
        )
        .unwrap_or_else(|e| panic!("case {c}: {e}"));
        let x = values(l.iter().product(), 1 + c as u64);
        let w = values(r.iter().product(), 100 + c as u64);
        assert_eq!(
            conv_raw(&x, &w, &spec),
            reference(&x, &w, &spec),
            "case {c}"
        );
        let (x64, w64): (Vec<f64>, Vec<f64>) = (
            x.iter().map(|&v| v as f64).collect(),
            w.iter().map(|&v| v as f64).collect(),
        );
        let want: Vec<f64> = reference(&x, &w, &spec).iter().map(|&v| v as f64).collect();
        assert_eq!(conv_raw(&x64, &w64, &spec), want, "case {c}, f64");
    }
}
