//! The exchange points of a substep on the device: the hook a decomposed run fills in
//! ([`DeviceExchange`], called with the device buffers of the exchanged slots), the
//! single-process no-op, and the adapter that calls a host
//! [`Exchange`](crate::common::exchange::Exchange) hook on downloaded copies.

use super::slots::SlotBuffer;
use crate::common::exchange::{Exchange as HaloExchange, NoExchange};
use crate::common::runner::{Exchange, ExchangeMode};
use foehn::error::Result;
use foehn::ir::{DType, FieldType};
use foehn::runtime::field::{Field, FieldData, FieldView};
use foehn_gpu::{DeviceBuffer, DevicePtr, Gpu};
use foehn_grid::Location;

/// A field of the device state as an exchange hook sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExchangedField {
    /// The slot name.
    pub name: String,
    /// Its device memory (foehn's column-major layout).
    pub ptr: DevicePtr,
    /// Its size in bytes.
    pub bytes: usize,
    /// Its dimensions and element type.
    pub ty: FieldType,
    /// Its shape (empty for a slot the state does not hold: a placeholder, with a null
    /// pointer and no bytes).
    pub shape: Vec<usize>,
}

/// Halo exchange of device fields (the device counterpart of
/// [`common::exchange::Exchange`](crate::common::exchange::Exchange)).
pub trait DeviceExchange {
    /// Starts exchanging the halos of `fields` (all on `location`).
    fn start(&mut self, location: Location, fields: &[ExchangedField]) -> Result<()>;

    /// Waits for the exchange begun by [`DeviceExchange::start`] and writes the received
    /// halo values into `fields`.
    fn wait(&mut self, location: Location, fields: &[ExchangedField]) -> Result<()>;

    /// A blocking exchange: [`DeviceExchange::start`], then [`DeviceExchange::wait`].
    fn exchange(&mut self, location: Location, fields: &[ExchangedField]) -> Result<()> {
        self.start(location, fields)?;
        self.wait(location, fields)
    }

    /// Whether the hook's work is all enqueued on the GPU's stream (nothing runs on the
    /// host, nothing waits) and does the same at every substep, so a substep may be
    /// recorded as a CUDA graph and replayed without calling the hook again (ADR 0028).
    fn recordable(&self) -> bool {
        false
    }
}

impl DeviceExchange for NoExchange {
    fn recordable(&self) -> bool {
        true
    }

    fn start(&mut self, _: Location, _: &[ExchangedField]) -> Result<()> {
        Ok(())
    }

    fn wait(&mut self, _: Location, _: &[ExchangedField]) -> Result<()> {
        Ok(())
    }
}

/// A host exchange hook called with the exchanged device fields downloaded, which are
/// uploaded back after it.
pub(super) struct HostHook<'h> {
    pub(super) hook: &'h mut dyn HaloExchange,
    pub(super) gpu: &'h Gpu,
}

impl HostHook<'_> {
    fn call(&mut self, mode: ExchangeMode, location: Location, f: &[ExchangedField]) -> Result<()> {
        let mut host = Vec::with_capacity(f.len());
        for x in f {
            if x.shape.is_empty() {
                host.push((None, Field::placeholder()));
                continue;
            }
            let n = x.shape.iter().product::<usize>();
            let zeros = match x.ty.dtype {
                DType::F64 => FieldData::F64(vec![0.0; n]),
                DType::F32 => FieldData::F32(vec![0.0; n]),
                DType::I32 => FieldData::I32(vec![0; n]),
                DType::Bool => FieldData::Bool(vec![false; n]),
            };
            let mut field = Field::new(x.ty.dims, x.shape.clone(), zeros)?;
            let slot = SlotBuffer {
                // SAFETY: a view of the slot's buffer, valid during this call; never freed.
                buf: unsafe { DeviceBuffer::borrowed(x.ptr, x.bytes) },
                ty: x.ty,
                shape: x.shape.clone(),
            };
            slot.download(self.gpu, &x.name, &mut field)?;
            host.push((Some(slot), field));
        }
        let names: Vec<&str> = f.iter().map(|x| x.name.as_str()).collect();
        let mut views: Vec<FieldView> = host.iter_mut().map(|(_, f)| f.view_mut()).collect();
        match mode {
            ExchangeMode::Blocking => self.hook.exchange(location, &names, &mut views),
            ExchangeMode::Start => self.hook.start(location, &names, &mut views),
            ExchangeMode::Wait => self.hook.wait(location, &names, &mut views),
        }?;
        drop(views);
        for ((slot, field), x) in host.iter().zip(f) {
            if let Some(slot) = slot {
                slot.upload_from(self.gpu, &x.name, field)?;
            }
        }
        Ok(())
    }
}

impl DeviceExchange for HostHook<'_> {
    fn start(&mut self, location: Location, fields: &[ExchangedField]) -> Result<()> {
        self.call(ExchangeMode::Start, location, fields)
    }

    fn wait(&mut self, location: Location, fields: &[ExchangedField]) -> Result<()> {
        self.call(ExchangeMode::Wait, location, fields)
    }

    fn exchange(&mut self, location: Location, fields: &[ExchangedField]) -> Result<()> {
        self.call(ExchangeMode::Blocking, location, fields)
    }
}

/// Runs an exchange point through a device hook.
pub(super) fn exchange_on_device(
    hook: &mut dyn DeviceExchange,
    x: &Exchange,
    fields: &[ExchangedField],
) -> Result<()> {
    match x.mode {
        ExchangeMode::Blocking => hook.exchange(x.location, fields),
        ExchangeMode::Start => hook.start(x.location, fields),
        ExchangeMode::Wait => hook.wait(x.location, fields),
    }
}
