//! One device buffer per slot of the solver's state, uploaded and downloaded whole.

use foehn::error::{Error, Result};
use foehn::ir::FieldType;
use foehn::runtime::field::{Field, FieldData};
use foehn_gpu::{DeviceBuffer, Gpu, GpuError};

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
    pub(super) fn upload(gpu: &Gpu, name: &str, f: &Field) -> Result<SlotBuffer> {
        let buf = match f.data() {
            FieldData::F64(v) => DeviceBuffer::from_slice(gpu, v),
            FieldData::F32(v) => DeviceBuffer::from_slice(gpu, v),
            FieldData::I32(v) => DeviceBuffer::from_slice(gpu, v),
            FieldData::Bool(v) => DeviceBuffer::from_slice(gpu, v),
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
