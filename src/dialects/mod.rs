//! TEMPORARY until the skeleton lands.
pub mod final_form;
