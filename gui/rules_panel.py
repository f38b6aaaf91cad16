"""Strategy, preset, the rules text (editable, with reset to the preset), archive date, output language, the
summary's length.

"Automatic" (the default preset) is the preset the documents' kind calls for (engine.prompts.presets.preset_for):
the planner thread tells it with each plan (the documents are read once there, not on the GUI thread at every
slider move), and the panel shows which and why, and its rules in the editor."""
from __future__ import annotations

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import (
    AUTO_PRESET,
    DEFAULT_PRESET,
    PresetChoice,
    list_presets,
    load_preset,
)
from precis.engine.summary.strategies import STRATEGIES

MAX_SUMMARY_WORDS = 5_000


class RulesPanel(QWidget):
    changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.strategy = QComboBox(self)
        self.strategy.setObjectName("strategySelector")
        self.strategy.addItem("auto", "auto")
        self.strategy.setItemData(0, "The default for the model's size (resources/model_profiles.json)", 3)
        for name, strategy in STRATEGIES.items():
            self.strategy.addItem(name, name)
            self.strategy.setItemData(self.strategy.count() - 1, strategy.title, 3)  # tooltip role
        form.addRow("Strategy", self.strategy)
        self.preset = QComboBox(self)
        self.preset.setObjectName("presetSelector")
        self.preset.addItem("Automatic", AUTO_PRESET)
        self.preset.setItemData(0, "The preset the documents call for: meeting minutes for a meeting transcript, "
                                   "project log for a git log, conversation archive for a chat with an assistant, "
                                   "generic for anything else", 3)
        self._auto = PresetChoice(DEFAULT_PRESET, "")       # what "Automatic" is for the documents shown
        for p in list_presets():
            self.preset.addItem(p.title, p.name)
            self.preset.setItemData(self.preset.count() - 1, p.description, 3)  # tooltip role
        form.addRow("Preset", self.preset)
        self.auto_note = QLabel(self)
        self.auto_note.setObjectName("presetChosen")
        self.auto_note.setWordWrap(True)
        self.auto_note.setStyleSheet("color: palette(mid);")
        form.addRow("", self.auto_note)
        self.date = QDateEdit(QDate.currentDate(), self)
        self.date.setObjectName("archiveDate")
        self.date.setDisplayFormat("yyyy-MM-dd")
        self.date.setCalendarPopup(True)
        form.addRow("Archive date", self.date)
        self.language = QLineEdit(self)
        self.language.setObjectName("outputLanguage")
        self.language.setPlaceholderText("the document's own")
        form.addRow("Output language", self.language)
        # the notes' and the account's length in words, as `--summary-words` sets it; "Automatic" is the plan's
        # (from what the document says: at most 3,000 characters for one of 40-70k), which the plan shows
        self.length = QSpinBox(self)
        self.length.setObjectName("summaryWords")
        self.length.setRange(0, MAX_SUMMARY_WORDS)
        self.length.setSingleStep(50)
        self.length.setSpecialValueText("Automatic")
        self.length.setSuffix(" words")
        self.length.setToolTip("The written summary's length (notes and account strategies). Automatic: from the "
                               "document's length, as the plan shows it")
        form.addRow("Summary length", self.length)
        layout.addLayout(form)
        self.rules = QPlainTextEdit(self)
        self.rules.setObjectName("rulesEditor")
        self.rules.setMinimumHeight(90)
        layout.addWidget(self.rules, 1)
        row = QHBoxLayout()
        self.reset = QPushButton("Reset rules to the preset", self)
        self.reset.clicked.connect(self.reset_rules)
        row.addStretch(1)
        row.addWidget(self.reset)
        layout.addLayout(row)
        self.preset.currentIndexChanged.connect(self.reset_rules)
        for signal in (self.strategy.currentIndexChanged, self.date.dateChanged, self.language.textChanged,
                       self.rules.textChanged, self.length.valueChanged):
            signal.connect(lambda *_: self.changed.emit())
        self.reset_rules()

    @property
    def summary_words(self) -> int | None:
        """The length asked for, None for the plan's own."""
        return self.length.value() or None

    @property
    def preset_name(self) -> str:
        """The preset the rules are of: the one chosen, or what "Automatic" is for the documents."""
        chosen = self.preset.currentData()
        return self._auto.name if chosen == AUTO_PRESET else chosen

    def reset_rules(self) -> None:
        self.rules.setPlainText(load_preset(self.preset_name).rules)
        self._show_auto_note()

    def show_choice(self, choice: PresetChoice) -> None:
        """What "Automatic" is for the documents (the planner's choice, made off the GUI thread); the editor
        shows its rules unless the person edited them, without asking for a new plan: the plan that made
        the choice followed those rules already."""
        if choice == self._auto:
            return
        edited = self.rules_overridden
        self._auto = choice
        if self.preset.currentData() == AUTO_PRESET and not edited:
            self.rules.blockSignals(True)
            self.rules.setPlainText(load_preset(choice.name).rules)
            self.rules.blockSignals(False)
        self._show_auto_note()

    def _show_auto_note(self) -> None:
        auto = self.preset.currentData() == AUTO_PRESET
        title = load_preset(self._auto.name).title
        if self._auto.by_file:      # per-file summaries of documents of different kinds
            shown = [f"{name} {load_preset(preset).title.lower()}" for name, preset in self._auto.by_file[:4]]
            more = len(self._auto.by_file) - len(shown)
            self.auto_note.setText("By file: " + ", ".join(shown) + (f" and {more} more" if more else ""))
        else:
            self.auto_note.setText(f"{title}, for {self._auto.reason}" if self._auto.reason else
                                   f"{title} until documents are read")
        self.auto_note.setVisible(auto)

    def set_preset(self, name: str, rules: str = "") -> None:
        index = self.preset.findData(name)
        if index >= 0:
            self.preset.setCurrentIndex(index)
        if rules:
            self.rules.setPlainText(rules)

    def layout_for_run(self) -> RoundLayout:
        auto = self.preset.currentData() == AUTO_PRESET
        layout = RoundLayout(load_preset(self.preset_name), self.date.date().toString("yyyy-MM-dd"),
                             self.language.text().strip() or None, self._auto.reason if auto else "")
        rules = self.rules.toPlainText().strip()
        return layout.with_rules(rules) if rules else layout

    def apply_request(self, request) -> None:
        """Show a run request's strategy, preset, rules, date and language (a resumed run's)."""
        self.set_preset(request.preset, request.rules_text)
        self.strategy.setCurrentText(request.strategy)
        self.date.setDate(QDate.fromString(request.archive_date, "yyyy-MM-dd"))
        self.language.setText(request.language or "")
        self.length.setValue(request.summary_words or 0)

    @property
    def rules_overridden(self) -> bool:
        return self.rules.toPlainText().strip() != load_preset(self.preset_name).rules.strip()
