//! Why a spin does not count. A table's rounds use it, and a profile
//! names the reasons its rules act on (which no spins return the bets, and
//! after which the ball is inspected), so it stands apart from both.

/// Why a spin does not count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum NoSpinReason {
    /// Colorado 2206(1), Maryland ch.6 A.
    SameDirection,
    /// Colorado 2206(2), Maryland ch.6 B, european-casino 4.4.
    TooFewRevolutions,
    /// Colorado 2206(3), Maryland ch.6 D.
    ForeignObject,
    /// Colorado 2206(4), Maryland ch.6 C.
    BallLeftWheel,
    /// low-limit-house Irregularities (5): called by the floor manager.
    BallHangs,
    /// european-casino 4.6.
    RotorStopped,
    /// european-casino 4.5.
    TrimLoose,
    /// european-casino 4.7.
    ExternalInfluence,
    /// european-casino 4.8.
    CroupierUnable,
    /// An automated wheel did not sense the ball.
    BallNotSensed,
    /// An automated wheel reported a sensor or motor fault.
    SensorFault,
    /// An automated wheel voided the game.
    VoidGame,
    /// An automated wheel's game first seen with its ball already launched
    /// (the table reconnected mid-game): bets may have followed the launch.
    LaunchUnseen,
    /// european-casino 6.1-6.3: an emergency or power loss.
    Emergency,
    /// european-casino glossary NO SPIN 4): an inspector's or pit boss's command.
    SupervisorCommand,
}

impl NoSpinReason {
    pub fn name(self) -> &'static str {
        match self {
            NoSpinReason::SameDirection => "same_direction",
            NoSpinReason::TooFewRevolutions => "too_few_revolutions",
            NoSpinReason::ForeignObject => "foreign_object",
            NoSpinReason::BallLeftWheel => "ball_left_wheel",
            NoSpinReason::BallHangs => "ball_hangs",
            NoSpinReason::RotorStopped => "rotor_stopped",
            NoSpinReason::TrimLoose => "trim_loose",
            NoSpinReason::ExternalInfluence => "external_influence",
            NoSpinReason::CroupierUnable => "croupier_unable",
            NoSpinReason::BallNotSensed => "ball_not_sensed",
            NoSpinReason::SensorFault => "sensor_fault",
            NoSpinReason::VoidGame => "void_game",
            NoSpinReason::LaunchUnseen => "launch_unseen",
            NoSpinReason::Emergency => "emergency",
            NoSpinReason::SupervisorCommand => "supervisor_command",
        }
    }

    pub const ALL: [NoSpinReason; 15] = [
        NoSpinReason::SameDirection,
        NoSpinReason::TooFewRevolutions,
        NoSpinReason::ForeignObject,
        NoSpinReason::BallLeftWheel,
        NoSpinReason::BallHangs,
        NoSpinReason::RotorStopped,
        NoSpinReason::TrimLoose,
        NoSpinReason::ExternalInfluence,
        NoSpinReason::CroupierUnable,
        NoSpinReason::BallNotSensed,
        NoSpinReason::SensorFault,
        NoSpinReason::VoidGame,
        NoSpinReason::LaunchUnseen,
        NoSpinReason::Emergency,
        NoSpinReason::SupervisorCommand,
    ];

    /// Whether someone at the table keys this no spin by hand: an emergency
    /// is declared, not keyed (european-casino 6.1), and an automated
    /// wheel's sensor reports are the wheel's own.
    pub fn keyed_by_hand(self) -> bool {
        !matches!(
            self,
            NoSpinReason::Emergency
                | NoSpinReason::BallNotSensed
                | NoSpinReason::SensorFault
                | NoSpinReason::VoidGame
                | NoSpinReason::LaunchUnseen
        )
    }

    /// Whether only the pit calls it: an inspector's or pit boss's command
    /// (european-casino glossary NO SPIN 4).
    pub fn pit_only(self) -> bool {
        self == NoSpinReason::SupervisorCommand
    }

    pub fn parse(name: &str) -> Option<NoSpinReason> {
        NoSpinReason::ALL.into_iter().find(|r| r.name() == name)
    }
}
