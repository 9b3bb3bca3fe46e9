//! One device buffer per slot of the solver's state, uploaded and downloaded whole.

use foehn::error::{Error, Result};
use foehn::ir::FieldType;
use foehn::runtime::field::{Field, FieldData};
use foehn_gpu::{DeviceBuffer, Gpu, GpuError};
use rayon::prelude::*;

/// A GPU error as the device state reports it, naming `what`.
pub(super) fn gpu_err(what: &str) -> impl Fn(GpuError) -> Error + '_ {
    move |e| Error::Field(format!("solve_nonhydro device state: {what}: {e}"))
}

/// One slot's device buffer.
pub(super) struct SlotBuffer {
    pub(super) buf: DeviceBuffer,
    pub(super) ty: FieldType,
    pub(super) shape: Vec<usize>,
}

impl SlotBuffer {
    /// A buffer holding `f`: copied, or, when every element's bits are zero (the
    /// intermediate fields, tendencies and diagnostics a run starts from), filled on
    /// the device, which skips the host-to-device copy of most of a state's
    /// gigabytes (and the host pages the zero fields were never written to).
    pub(super) fn upload(gpu: &Gpu, name: &str, f: &Field) -> Result<SlotBuffer> {
        let buf = if all_zero_bits(f.data()) {
            let bytes = f.data().len() * f.field_type().dtype.size_bytes();
            DeviceBuffer::alloc(gpu, bytes).and_then(|b| b.fill_bytes(gpu, 0).map(|()| b))
        } else {
            match f.data() {
                FieldData::F64(v) => DeviceBuffer::from_slice(gpu, v),
                FieldData::F32(v) => DeviceBuffer::from_slice(gpu, v),
                FieldData::I32(v) => DeviceBuffer::from_slice(gpu, v),
                FieldData::Bool(v) => DeviceBuffer::from_slice(gpu, v),
            }
        }
        .map_err(gpu_err(name))?;
        Ok(SlotBuffer {
            buf,
            ty: f.field_type(),
            shape: f.shape().to_vec(),
        })
    }

    pub(super) fn download(&self, gpu: &Gpu, name: &str, f: &mut Field) -> Result<()> {
        if f.shape() != self.shape.as_slice() || f.field_type() != self.ty {
            return Err(Error::Field(format!(
                "solve_nonhydro device state: `{name}` is {} on the host, {} on the device",
                f.describe(),
                foehn::runtime::field::describe(self.ty.dims, &self.shape, self.ty.dtype)
            )));
        }
        match f.data_mut() {
            FieldData::F64(v) => self.buf.download(gpu, v),
            FieldData::F32(v) => self.buf.download(gpu, v),
            FieldData::I32(v) => self.buf.download(gpu, v),
            FieldData::Bool(v) => {
                let mut bytes = vec![0u8; v.len()];
                let r = self.buf.download(gpu, &mut bytes);
                v.iter_mut().zip(bytes).for_each(|(b, x)| *b = x != 0);
                r
            }
        }
        .map_err(gpu_err(name))
    }

    pub(super) fn upload_from(&self, gpu: &Gpu, name: &str, f: &Field) -> Result<()> {
        match f.data() {
            FieldData::F64(v) => self.buf.upload(gpu, v),
            FieldData::F32(v) => self.buf.upload(gpu, v),
            FieldData::I32(v) => self.buf.upload(gpu, v),
            FieldData::Bool(v) => self.buf.upload(gpu, v),
        }
        .map_err(gpu_err(name))
    }
}

/// Whether every element of `data` is stored as zero bits (`-0.0` is not), checked on
/// all threads, stopping at the first element that is not.
fn all_zero_bits(data: &FieldData) -> bool {
    const CHUNK: usize = 1 << 16;
    match data {
        FieldData::F64(v) => v
            .par_chunks(CHUNK)
            .all(|c| c.iter().all(|x| x.to_bits() == 0)),
        FieldData::F32(v) => v
            .par_chunks(CHUNK)
            .all(|c| c.iter().all(|x| x.to_bits() == 0)),
        FieldData::I32(v) => v.par_chunks(CHUNK).all(|c| c.iter().all(|&x| x == 0)),
        FieldData::Bool(v) => v.par_chunks(CHUNK).all(|c| c.iter().all(|&x| !x)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_fields_stored_as_zero_bits_are_filled_on_the_device() {
        let n = 3 * (1 << 16) + 5;
        let mut v = vec![0.0f64; n];
        assert!(all_zero_bits(&FieldData::F64(v.clone())));
        // A negative zero is not zero bits: a fill would change it.
        v[n - 1] = -0.0;
        assert!(!all_zero_bits(&FieldData::F64(v)));
        assert!(!all_zero_bits(&FieldData::F32(vec![0.0, 1e-30])));
        assert!(all_zero_bits(&FieldData::I32(vec![0; 7])));
        assert!(!all_zero_bits(&FieldData::Bool(vec![false, true])));
        assert!(all_zero_bits(&FieldData::Bool(Vec::new())));
    }
}
